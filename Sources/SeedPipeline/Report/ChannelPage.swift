import Foundation

/// The channel page, `index.html`: the current release, what changed last night, and plots over the
/// kept releases, as one self-contained HTML file (inline CSS and SVG, no script, no external asset)
/// that reads the same from a server, opened as a file, or on a phone.
///
/// Every plot has a text alternative (`role="img"` with a title and a description giving its
/// latest value and range) and the table of its figures under it.
public struct ChannelPage: Sendable {
    public var history: ChannelHistory
    /// When the page was made, printed in its footer.
    public var generated: Date

    public init(history: ChannelHistory, generated: Date = Date()) {
        self.history = history
        self.generated = generated
    }

    /// The page's HTML.
    public var html: String {
        var page = PageBuilder()
        let title = "\(history.dataset): seed channel"
        page.raw("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        page.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        page.raw("<title>\(htmlEscaped(title))</title><style>\(Self.style)</style></head><body><main>")
        page.raw("<h1>\(htmlEscaped(history.dataset)) <span class=\"muted\">seed channel</span></h1>")
        page.raw("<p class=\"muted\">\(htmlEscaped(history.channel))</p>")
        if let current = history.releases.first {
            currentRelease(current, into: &page)
            changes(current, into: &page)
        }
        plots(into: &page)
        let made = ISO8601DateFormatter().string(from: generated)
        var footer =
            "Made by seedbuild at \(made) from the channel's latest.json and the manifests of its \(history.releases.count) kept releases."
        if !history.unreadable.isEmpty {
            footer += " Not shown (manifest not readable): data versions \(history.unreadable.map(String.init).joined(separator: ", "))."
        }
        page.raw("<footer><p class=\"muted\">\(htmlEscaped(footer))</p></footer></main></body></html>\n")
        return page.text
    }

    private func currentRelease(_ release: ChannelHistory.Release, into page: inout PageBuilder) {
        page.raw("<section aria-labelledby=\"current\"><h2 id=\"current\">Current release: data version \(release.dataVersion)</h2><dl>")
        let model = [release.modelName, release.modelVersions.first.map { "version \($0)" }].compactMap { $0 }.joined(separator: ", ")
        let facts: [(String, String)] = [
            ("Built", release.created ?? "unknown"),
            ("Signed by", release.signedBy.map { "key \($0)" } ?? "unsigned"),
            ("Model", model.isEmpty ? "unknown" : model),
            ("Artifact", Self.bytes(release.artifactBytes)),
            ("Store", Self.bytes(release.storeBytes)),
            ("Rows rejected", "\(release.rejected)"),
        ]
        for (term, value) in facts { page.raw("<dt>\(htmlEscaped(term))</dt><dd>\(htmlEscaped(value))</dd>") }
        page.raw("</dl>")
        page.table(
            caption: "Rows per entity", header: ["Entity", "Rows"],
            rows: release.rowCounts.keys.sorted().map { [$0, "\(release.rowCounts[$0] ?? 0)"] }, numeric: [1])
        if release.deltas.isEmpty {
            page.raw("<p>No delta was published with this release: every device downloads the artifact.</p>")
        } else {
            page.table(
                caption: "Deltas published with it", header: ["From data version", "Bytes", "Share of the artifact"],
                rows: release.deltas.map { ["\($0.fromDataVersion)", Self.bytes($0.bytes), Self.percent(release.share($0))] },
                numeric: [0, 1, 2])
        }
        page.raw("</section>")
    }

    private func changes(_ release: ChannelHistory.Release, into page: inout PageBuilder) {
        page.raw("<section aria-labelledby=\"changes\"><h2 id=\"changes\">What changed</h2>")
        guard let changes = release.changes else {
            page.raw("<p>No change report: this release followed no earlier one.</p></section>")
            return
        }
        page.raw(
            "<p>Against data version \(changes.fromDataVersion.map(String.init) ?? "unknown"): \(changes.touched) row\(changes.touched == 1 ? "" : "s") added, removed or changed.</p>"
        )
        let rows = changes.entities.map { entity -> [String] in
            let touched = entity.added + entity.removed + entity.changed
            let share = entity.baseRows > 0 ? Double(touched) / Double(entity.baseRows) : 0
            let samples = EntityChanges.Kind.allCases.compactMap { kind in
                entity.samples[kind].flatMap { $0.isEmpty ? nil : "\(kind.rawValue): \($0.joined(separator: ", "))" }
            }.joined(separator: "; ")
            return [
                entity.entity, "\(entity.baseRows)", "\(entity.added)", "\(entity.removed)", "\(entity.changed)", Self.percent(share),
                samples,
            ]
        }
        page.table(
            caption: "Changes per entity", header: ["Entity", "Base rows", "Added", "Removed", "Changed", "Share", "Sample keys"],
            rows: rows, numeric: [1, 2, 3, 4, 5])
        page.raw("</section>")
    }

    private func plots(into page: inout PageBuilder) {
        let releases = Array(history.releases.reversed())
        guard !releases.isEmpty else { return }
        page.raw("<section aria-labelledby=\"history\"><h2 id=\"history\">Over the last \(releases.count) releases</h2>")
        let versions = releases.map { "\($0.dataVersion)" }
        let entities = Set(releases.flatMap { $0.rowCounts.keys }).sorted()
        let rowSeries = entities.map { entity in PlotSeries(name: entity, values: releases.map { $0.rowCounts[entity].map(Double.init) }) }
        page.plot(Plot(id: "rows", title: "Rows per entity", unit: "rows", labels: versions, series: rowSeries, style: .line))
        page.plot(
            Plot(
                id: "artifact", title: "Artifact size", unit: "bytes", labels: versions,
                series: [PlotSeries(name: "Artifact bytes", values: releases.map { Double($0.artifactBytes) })], style: .line))
        // The share of the delta from the release just before, the one most devices take.
        let shares = releases.enumerated().map { index, release -> Double? in
            guard index > 0, let delta = release.deltas.first(where: { $0.fromDataVersion == releases[index - 1].dataVersion }) else {
                return nil
            }
            return release.share(delta) * 100
        }
        page.plot(
            Plot(
                id: "delta-share", title: "Delta from the previous release, share of the artifact", unit: "%", labels: versions,
                series: [PlotSeries(name: "Delta share (%)", values: shares)], style: .bars))
        page.plot(
            Plot(
                id: "changed", title: "Rows changed per night", unit: "rows", labels: versions,
                series: [
                    PlotSeries(name: "Rows added, removed or changed", values: releases.map { $0.changes.map { Double($0.touched) } })
                ], style: .bars))
        page.raw("</section>")
    }

    /// `18.9 KB`, `65.2 MB`: decimal units, as the build's summary prints them.
    static func bytes(_ count: Int64) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) bytes" : String(format: "%.1f %@", value, units[unit])
    }

    static func percent(_ share: Double) -> String {
        share > 0 && share < 0.001 ? String(format: "%.3f%%", share * 100) : String(format: "%.1f%%", share * 100)
    }

    static let style = """
        body{font:16px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1f24;background:#fff}
        main{max-width:60rem;margin:0 auto;padding:1rem}
        h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #d0d7de}
        .muted{color:#57606a;font-weight:normal;overflow-wrap:anywhere}
        dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
        .scroll{overflow-x:auto}table{border-collapse:collapse;margin:.75rem 0;min-width:50%}
        caption{text-align:left;font-weight:600;padding:.25rem 0}th,td{border-bottom:1px solid #d0d7de;padding:.25rem .6rem;text-align:left;vertical-align:top}
        td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}td.n{white-space:nowrap}
        figure{margin:1.5rem 0}figcaption{font-weight:600}svg{width:100%;min-width:32rem;max-width:48rem;height:auto;display:block}
        details{margin:.25rem 0 1rem}summary{cursor:pointer;color:#0550ae}
        .legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.9rem}.swatch{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-.1rem}
        """
}

/// Appends HTML, escaping what it is given as text.
struct PageBuilder {
    private(set) var text = ""

    mutating func raw(_ html: String) { text += html }

    mutating func table(caption: String, header: [String], rows: [[String]], numeric: Set<Int> = []) {
        raw("<div class=\"scroll\"><table><caption>\(htmlEscaped(caption))</caption><thead><tr>")
        for (index, name) in header.enumerated() {
            raw("<th scope=\"col\"\(numeric.contains(index) ? " class=\"n\"" : "")>\(htmlEscaped(name))</th>")
        }
        raw("</tr></thead><tbody>")
        for row in rows {
            raw("<tr>")
            for (index, cell) in row.enumerated() {
                raw(
                    index == 0
                        ? "<th scope=\"row\">\(htmlEscaped(cell))</th>"
                        : "<td\(numeric.contains(index) ? " class=\"n\"" : "")>\(htmlEscaped(cell))</td>")
            }
            raw("</tr>")
        }
        raw("</tbody></table></div>")
    }
}

/// Text for HTML: `&`, `<`, `>` and quotes escaped.
func htmlEscaped(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&#39;"
        default: escaped.append(character)
        }
    }
    return escaped
}
