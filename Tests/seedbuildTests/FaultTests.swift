import Foundation
import Testing

/// Faults end with a sysexits status and a message naming the path and the cause — never a crash.
@Suite("Faults on the command line")
struct FaultTests {
    @Test func malformedModelFilesAreRefusedNotCrashedOn() throws {
        let project = try SampleProject()
        let reproducers: [(String, [UInt8])] = [
            ("Utf8.xcdatamodel", Array("<model><e".utf8) + [0xFF] + Array("/></model>".utf8)),
            ("Instruction.xcdatamodel", Array("<model><?foo?></model>".utf8)),
        ]
        for (name, bytes) in reproducers {
            try FileManager.default.createDirectory(atPath: project.path(name), withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: project.path(name + "/contents")))
            let result = try runSeedbuild(["model", "show", name], in: project.url, environment: ["SWIFT_BACKTRACE": "enable=no"])
            #expect(result.status == 65, "\(name): \(result.stderr)")
            #expect(result.stderr.contains("\(name)/contents: line 1:"), "\(result.stderr)")
            let build = try runSeedbuild(["build", "seeds/postcodes.csv", "--model", name], in: project.url, environment: ["SWIFT_BACKTRACE": "enable=no"])
            #expect(build.status == 65, "\(name): \(build.stderr)")
        }
    }
}
