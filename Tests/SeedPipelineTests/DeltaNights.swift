import Foundation
import SeedInstall
import SeedPipeline
import SeedTestSupport

/// Nightly releases of the test postcodes for the delta suites: each night's export, built following
/// a base into `out-<name>` and packaged, as the nightly job does.
struct DeltaNights {
    let directory: TemporaryDirectory

    /// Night `night`'s export: 1,500 postcodes; each night moves a few, drops a few and adds a few.
    static func postcodes(night: Int) -> String {
        var lines = ["postcode,county_code,latitude,active,introduced,country_code"]
        for index in 0..<1_500 {
            // Night n drops every postcode whose number ends in n (n > 1), and moves those ending in n + 1.
            if night > 1, index % 100 == night { continue }
            let moved = night > 1 && index % 100 == night + 1
            let latitude = 50 + Double(index) / 1_000 + (moved ? Double(night) / 10 : 0)
            lines.append("AB\(index / 100) \(index % 100)XY,\(index % 2 == 0 ? "KEN" : "EDI"),\(latitude),yes,2001-02-03,E92000001")
        }
        for added in 0..<(night - 1) * 3 { lines.append("ZZ\(night) \(added)AA,KEN,52.5,no,,E92000001") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Builds night `night` as data version `night` into `out-<name>`, following `base`, and packages it.
    func build(
        _ name: String, night: Int, base: String?, deltas: Int? = nil, maxShare: Double? = nil, sign key: SigningKey? = nil
    ) throws -> PackagedArtifact {
        writeTestInputs(directory, postcodes: Self.postcodes(night: night))
        var options = BuildOptions(files: [directory.path("in/postcodes.csv")])
        options.model = directory.path("model.json")
        options.outputDirectory = directory.path("out-\(name)")
        options.dataVersion = Int64(night)
        options.base = base
        options.deltaCount = deltas
        options.deltaMaxShare = maxShare
        var (request, _) = try options.resolve(project: nil)
        request.buildTime = Date(timeIntervalSince1970: 1_700_000_000)
        let built = try SeedBuilder().build(request)
        var packager = Packager()
        packager.signingKey = key
        return try packager.package(built)
    }

    /// The delta files in an output folder, by name.
    func deltaFiles(_ name: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path("out-\(name)")).filter { $0.hasSuffix(".delta.gz") }.sorted()
    }
}
