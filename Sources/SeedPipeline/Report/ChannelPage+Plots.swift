import Foundation

/// One line or set of bars: a value per release, nil where the release has none.
struct PlotSeries {
    var name: String
    var values: [Double?]
}

/// A plot over the kept releases, oldest on the left.
struct Plot {
    enum Style { case line, bars }

    var id: String
    var title: String
    var unit: String
    /// The data versions, one per value.
    var labels: [String]
    var series: [PlotSeries]
    var style: Style

    static let palette = ["#0969da", "#bc4c00", "#1a7f37", "#8250df", "#cf222e", "#4d2d00"]
    static let (width, height) = (600.0, 230.0)
    static let (left, right, top, bottom) = (58.0, 10.0, 12.0, 34.0)

    /// What a screen reader says: the span, and each series' latest value and range.
    var summary: String {
        var text = "\(title) over \(labels.count) release\(labels.count == 1 ? "" : "s")"
        if let first = labels.first, let last = labels.last { text += ", data versions \(first) to \(last)" }
        text += "."
        for series in series {
            let present = series.values.compactMap { $0 }
            guard let latest = series.values.last(where: { $0 != nil }) ?? nil, let low = present.min(), let high = present.max() else {
                text += " \(series.name): no value."
                continue
            }
            text +=
                " \(series.name): latest \(Plot.format(latest, unit: unit)), from \(Plot.format(low, unit: unit)) to \(Plot.format(high, unit: unit))."
        }
        return text
    }

    /// `1.2M`, `34.5k`, `0.07%`: short enough for an axis. With `step`, the digits that tell
    /// ticks `step` apart, no more.
    static func format(_ value: Double, unit: String, step: Double? = nil) -> String {
        // From 10,000 up in thousands: 9500 reads better than 9.5k on an axis of rows.
        let scales: [(from: Double, divisor: Double, suffix: String)] =
            unit == "%" ? [] : [(1e9, 1e9, "G"), (1e6, 1e6, "M"), (1e4, 1e3, "k")]
        let (_, divisor, suffix) = scales.first { abs(value) >= $0.from || (step ?? 0) >= $0.from } ?? (0, 1, unit == "%" ? "%" : "")
        let scaled = value / divisor
        let digits: Int
        if let step, step > 0 {
            digits = min(max(Int(ceil(-log10(step / divisor) - 1e-9)), 0), 3)
        } else if unit == "%" {
            digits = scaled > 0 && scaled < 0.1 ? 3 : 1
        } else {
            digits = scaled == scaled.rounded() ? 0 : (divisor > 1 ? 1 : 2)
        }
        return String(format: "%.\(digits)f", scaled) + suffix
    }

    /// Round ticks covering the values (1, 2 or 5 times a power of ten apart); the first and last are the plot's range.
    var ticks: [Double] {
        let values = series.flatMap { $0.values.compactMap { $0 } }
        var low = values.min() ?? 0
        var high = values.max() ?? 1
        if style == .bars || low >= 0 && low < (high - low) { low = min(low, 0) }
        if high == low { high = low + 1 }
        let raw = (high - low) / 4
        let magnitude = pow(10, floor(log10(raw)))
        let residual = raw / magnitude
        var step = (residual > 5 ? 10 : residual > 2 ? 5 : residual > 1 ? 2 : 1) * magnitude
        // Counts (rows, bytes) never tick between whole numbers.
        if unit != "%" { step = max(step, 1) }
        let first = floor(low / step) * step
        let last = ceil(high / step) * step
        return stride(from: first, through: last + step / 2, by: step).map { $0 }
    }

    var svg: String {
        let ticks = ticks
        let (low, high) = (ticks.first ?? 0, ticks.last ?? 1)
        let tickStep = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        let plotWidth = Plot.width - Plot.left - Plot.right
        let plotHeight = Plot.height - Plot.top - Plot.bottom
        let count = max(labels.count, 1)
        let step = plotWidth / Double(count)
        let x = { (index: Int) in Plot.left + step * (Double(index) + 0.5) }
        let y = { (value: Double) in Plot.top + plotHeight * (1 - (value - low) / (high - low)) }
        var out =
            "<svg viewBox=\"0 0 \(Int(Plot.width)) \(Int(Plot.height))\" role=\"img\" aria-labelledby=\"\(id)-title \(id)-desc\" xmlns=\"http://www.w3.org/2000/svg\">"
        out += "<title id=\"\(id)-title\">\(htmlEscaped(title))</title><desc id=\"\(id)-desc\">\(htmlEscaped(summary))</desc>"
        // Grid and y labels at the ticks.
        for value in ticks {
            let at = String(format: "%.1f", y(value))
            out +=
                "<line x1=\"\(Int(Plot.left))\" x2=\"\(Int(Plot.width - Plot.right))\" y1=\"\(at)\" y2=\"\(at)\" stroke=\"#d0d7de\" stroke-width=\"1\"/>"
            out +=
                "<text x=\"\(Int(Plot.left) - 6)\" y=\"\(at)\" font-size=\"13\" text-anchor=\"end\" dominant-baseline=\"middle\" fill=\"#57606a\">\(htmlEscaped(Plot.format(value, unit: unit, step: tickStep)))</text>"
        }
        // X labels: the first, the middle and the last data version.
        for index in Set([0, (count - 1) / 2, count - 1]).sorted() where index < labels.count {
            let anchor = index == 0 ? "start" : index == count - 1 ? "end" : "middle"
            let at = index == 0 ? Plot.left : index == count - 1 ? Plot.width - Plot.right : x(index)
            out +=
                "<text x=\(quoted(at)) y=\"\(Int(Plot.height) - 10)\" font-size=\"13\" text-anchor=\"\(anchor)\" fill=\"#57606a\">\(htmlEscaped(labels[index]))</text>"
        }
        for (number, series) in series.enumerated() {
            let color = Plot.palette[number % Plot.palette.count]
            switch style {
            case .bars:
                let width = max(step * 0.7, 1)
                for (index, value) in series.values.enumerated() {
                    guard let value else { continue }
                    let top = y(value)
                    out +=
                        "<rect x=\(quoted(x(index) - width / 2)) y=\(quoted(top)) width=\(quoted(width)) height=\(quoted(max(Plot.top + plotHeight - top, 0))) fill=\"\(color)\"/>"
                }
            case .line:
                // A gap where a release has no value: the line is broken there.
                var runs: [[String]] = [[]]
                for (index, value) in series.values.enumerated() {
                    if let value {
                        runs[runs.count - 1].append("\(format1(x(index))),\(format1(y(value)))")
                    } else if !runs[runs.count - 1].isEmpty {
                        runs.append([])
                    }
                }
                for run in runs where !run.isEmpty {
                    if run.count == 1 {
                        let point = run[0].split(separator: ",")
                        out += "<circle cx=\"\(point[0])\" cy=\"\(point[1])\" r=\"3\" fill=\"\(color)\"/>"
                    } else {
                        out += "<polyline points=\"\(run.joined(separator: " "))\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>"
                    }
                }
            }
        }
        return out + "</svg>"
    }
}

private func format1(_ value: Double) -> String { String(format: "%.1f", value) }
private func quoted(_ value: Double) -> String { "\"\(format1(value))\"" }

extension PageBuilder {
    /// The plot as a figure, its legend, and its figures in a table under it.
    mutating func plot(_ plot: Plot) {
        raw("<figure aria-labelledby=\"\(plot.id)-caption\"><figcaption id=\"\(plot.id)-caption\">\(htmlEscaped(plot.title))</figcaption>")
        if plot.series.count > 1 {
            raw("<div class=\"legend\">")
            for (number, series) in plot.series.enumerated() {
                raw(
                    "<span><span class=\"swatch\" style=\"background:\(Plot.palette[number % Plot.palette.count])\"></span>\(htmlEscaped(series.name))</span>"
                )
            }
            raw("</div>")
        }
        // Scrolled sideways on a phone rather than drawn too small to read.
        raw("<div class=\"scroll\">\(plot.svg)</div>")
        raw("<details><summary>Figures</summary>")
        let rows = plot.labels.enumerated().reversed().map { index, label in
            [label] + plot.series.map { series in series.values[index].map { Plot.format($0, unit: plot.unit) } ?? "–" }
        }
        table(
            caption: plot.title, header: ["Data version"] + plot.series.map(\.name), rows: rows, numeric: Set(1...max(plot.series.count, 1))
        )
        raw("</details></figure>")
    }
}
