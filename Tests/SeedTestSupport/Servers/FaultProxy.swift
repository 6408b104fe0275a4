import Foundation

/// `fault_proxy.py` in front of a real server: answers with errors or hangs up, as told; stopped on deinit.
public final class FaultProxy {
    private let server: HelperServer

    public var port: Int { server.port }
    public var url: String { server.url }
    /// The request lines the proxy saw.
    public var requests: [String] { server.requests }

    public init(upstream: String, failFirst: Int = 0, status: Int = 503, dropGets: Int = 0, dropPuts: Int = 0) throws {
        server = try HelperServer(
            script: "fault_proxy.py",
            arguments: [
                "--upstream", upstream, "--fail-first", "\(failFirst)", "--status", "\(status)",
                "--drop-gets", "\(dropGets)", "--drop-puts", "\(dropPuts)",
            ])
    }
}
