import Foundation

/// The built `seedbuild` executable, in the build folder the tests run from (`.build/debug/seedbuild`),
/// for tests that run the tool as a user does: the folder of the test runner, walked up out of any
/// `.xctest` bundle it runs inside.
public let seedbuildBinary: URL = {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
    while folder.path.contains(".xctest") { folder.deleteLastPathComponent() }
    return folder.appendingPathComponent("seedbuild")
}()
