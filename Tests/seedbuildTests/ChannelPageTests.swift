import Foundation
import SeedTestSupport
import Testing

/// The channel at a glance: the page `publish` writes and `report` draws, rendered by a real browser,
/// and the metrics file checked by Prometheus's own tool.
@Suite("The channel page and the job's metrics")
struct ChannelPageTests {
    private func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// The page as Chromium renders it: the DOM's text after layout, and screenshots at a desktop's and a phone's width.
    private func render(_ page: String, screenshots name: String) throws -> String {
        let chromium = try #require(
            ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: FileManager.default.isExecutableFile(atPath:)),
            "chromium is not installed; run scripts/test, which installs it")
        let kept = repositoryPath(".build/test-screenshots")
        try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
        let flags =
            "--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=\(NSTemporaryDirectory())/chromium-\(UUID().uuidString)"
        for (width, label) in [(1280, "desktop"), (390, "phone")] {
            let shot = "\(kept)/\(name)-\(label).png"
            let taken = try shell("\(chromium) \(flags) --window-size=\(width),2400 --screenshot='\(shot)' 'file://\(page)' 2>/dev/null")
            #expect(taken.status == 0)
            let size = (try FileManager.default.attributesOfItem(atPath: shot)[.size] as? NSNumber)?.intValue ?? 0
            #expect(size > 20_000, "a screenshot with something drawn: \(shot) is \(size) bytes")
        }
        let dom = try shell("\(chromium) \(flags) --dump-dom 'file://\(page)' 2>/dev/null")
        #expect(dom.status == 0)
        return String(decoding: dom.output, as: UTF8.self)
    }

    @Test func publishingWritesThePageThatShowsTheManifests() throws {
        let project = try SampleProject()
        for version in 1...8 {
            if version > 1 { try project.removeFirstPostcode() }
            let night = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "\(version)"], in: project.url)
            #expect(night.status == 0, "\(night.stderr)")
            #expect(night.stdout.contains("channel page: dist/postcodes/2/index.html"), "\(night.stdout)")
        }
        let page = project.path("dist/postcodes/2/index.html")
        let manifest = try json(project.path("dist/postcodes/2/manifests/8.json"))
        let shown = try render(page, screenshots: "channel-8-releases")
        #expect(shown.contains("Current release: data version 8"))
        let rows = try #require(manifest["rowCounts"] as? [String: Int])
        for (entity, count) in rows {
            #expect(shown.contains("<th scope=\"row\">\(entity)</th><td class=\"n\">\(count)</td>"), "\(entity) \(count)")
        }
        let deltas = try #require(manifest["deltas"] as? [[String: Any]])
        #expect(deltas.count == 7)
        for delta in deltas {
            #expect(shown.contains("<th scope=\"row\">\(delta["fromDataVersion"] as? Int ?? -1)</th>"))
        }
        // Last night's changes, as the build counted them against release 7: one postcode removed.
        let changes = try #require(manifest["changes"] as? [String: Any])
        #expect(changes["fromDataVersion"] as? Int == 7)
        #expect(shown.contains("Against data version 7: 1 row added, removed or changed."))
        // Every plot has its text alternative and its figures: one row per release.
        for plot in ["rows", "artifact", "delta-share", "changed"] {
            #expect(shown.contains("<desc id=\"\(plot)-desc\">"), "\(plot)")
        }
        #expect(shown.components(separatedBy: "<th scope=\"row\">8</th>").count - 1 >= 4, "each plot's table has release 8")
        #expect(!shown.contains("<script"), "no script")
        #expect(!shown.contains("src=\"http"), "no external asset")

        // `report` draws the same page for the channel, as a folder or a URL.
        let server = try NginxServer()
        #expect(try shell("cp -r '\(project.path("dist"))/.' '\(server.root)/'").status == 0)
        let report = try runSeedbuild(["report", server.url + "postcodes/2/", "--out", "report.html"], in: project.url)
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.contains("wrote report.html: 8 releases of postcodes, current data version 8"))
        let drawn = try String(contentsOfFile: project.path("report.html"), encoding: .utf8)
        let published = try String(contentsOfFile: page, encoding: .utf8)
        let withoutFooter = { (html: String) in html.components(separatedBy: "<footer>")[0].replacingOccurrences(of: server.url, with: "") }
        #expect(
            withoutFooter(drawn).replacingOccurrences(of: "postcodes/2/", with: "")
                == withoutFooter(published).replacingOccurrences(of: "dist/postcodes/2/", with: ""))
        withExtendedLifetime(server) {}
    }

    @Test func aPageOfAHundredReleasesStaysSmall() throws {
        let project = try SampleProject()
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1"], in: project.url).status == 0)
        try project.removeFirstPostcode()
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2"], in: project.url).status == 0)
        // 100 kept releases: release 2's manifest (7 deltas listed, a change report) under each data version.
        let channel = project.path("dist/postcodes/2")
        var manifest = try json(channel + "/manifests/2.json")
        var deltas = try #require(manifest["deltas"] as? [[String: Any]])
        deltas = (0..<7).map { index in deltas[0].merging(["fromDataVersion": 93 + index]) { _, new in new } }
        for version in 1...100 {
            manifest["dataVersion"] = version
            manifest["deltas"] = deltas
            try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: channel + "/manifests/\(version).json"))
        }
        var pointer = try json(channel + "/latest.json")
        pointer["dataVersion"] = 100
        pointer["manifest"] = "manifests/100.json"
        pointer["releases"] = Array((1...100).reversed())
        try JSONSerialization.data(withJSONObject: pointer).write(to: URL(fileURLWithPath: channel + "/latest.json"))
        let report = try runSeedbuild(["report", channel, "--out", "page.html"], in: project.url)
        #expect(report.status == 0, "\(report.stderr)")
        let bytes = (try FileManager.default.attributesOfItem(atPath: project.path("page.html"))[.size] as? NSNumber)?.intValue ?? .max
        #expect(bytes < 300_000, "\(bytes) bytes")
        let shown = try render(project.path("page.html"), screenshots: "channel-100-releases")
        #expect(shown.contains("Over the last 100 releases"))
    }

    @Test func theMetricsFilePassesPromtoolAndKeepsTheLastSuccess() throws {
        let promtool = try #require(
            ["/usr/bin/promtool", "/usr/local/bin/promtool"].first(where: FileManager.default.isExecutableFile(atPath:)),
            "promtool is not installed; run scripts/test, which installs Debian's prometheus")
        let project = try SampleProject()
        #expect(try runSeedbuild(["seeds/postcodes.csv", "--data-version", "1"], in: project.url).status == 0)
        try project.removeFirstPostcode()
        let night = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "2", "--metrics", "job.prom"], in: project.url)
        #expect(night.status == 0, "\(night.stderr)")
        let file = project.path("job.prom")
        let checked = try shell("'\(promtool)' check metrics < '\(file)' 2>&1")
        #expect(checked.status == 0, "\(String(decoding: checked.output, as: UTF8.self))")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let manifest = try json(project.path("build/seed/manifest.json"))
        for (entity, count) in try #require(manifest["rowCounts"] as? [String: Int]) {
            #expect(text.contains("seedbuild_entity_rows{entity=\"\(entity)\"} \(count)\n"))
        }
        #expect(text.contains("seedbuild_published_data_version 2\n"))
        #expect(text.contains("seedbuild_changed_rows{entity=\"Postcode\",change=\"removed\"} 1\n"))
        #expect(text.contains("seedbuild_success 1\n"))
        for stage in ["build", "compress", "verify", "publish"] {
            #expect(text.contains("seedbuild_stage_duration_seconds{stage=\"\(stage)\"} "), "\(stage)")
        }
        let succeeded = try #require(text.split(separator: "\n").first { $0.hasPrefix("seedbuild_last_success_timestamp_seconds ") })

        // A failed night: success 0, the last success's time kept, the file still valid.
        project.write("seeds/postcodes.csv", "postcode,bogus\nAB1,x\n")
        let failed = try runSeedbuild(["seeds/postcodes.csv", "--data-version", "3", "--metrics", "job.prom"], in: project.url)
        #expect(failed.status != 0)
        let after = try String(contentsOfFile: file, encoding: .utf8)
        #expect(after.contains("seedbuild_success 0\n"))
        #expect(after.contains(String(succeeded) + "\n"))
        #expect(try shell("'\(promtool)' check metrics < '\(file)' 2>&1").status == 0)

        // `build` and `publish` write theirs too, failed or not.
        let built = try runSeedbuild(["build", "seeds/postcodes.csv", "--out", "other", "--metrics", "build.prom"], in: project.url)
        #expect(built.status == 65)
        #expect(try String(contentsOfFile: project.path("build.prom"), encoding: .utf8).contains("seedbuild_success 0\n"))
        #expect(try shell("'\(promtool)' check metrics < '\(project.path("build.prom"))' 2>&1").status == 0)
        let published = try runSeedbuild(["publish", "--metrics", "publish.prom"], in: project.url)
        #expect(published.status == 0, "\(published.stderr)")
        let publishText = try String(contentsOfFile: project.path("publish.prom"), encoding: .utf8)
        #expect(publishText.contains("seedbuild_publish_outcome{outcome=\"unchanged\"} 1\n"))
        #expect(try shell("'\(promtool)' check metrics < '\(project.path("publish.prom"))' 2>&1").status == 0)
    }
}
