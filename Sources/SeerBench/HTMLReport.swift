import Foundation
import Seer
import SeerImage

/// The bench as one self-contained HTML file: tables, inline SVG plots, and the photos Seer missed or
/// misread as thumbnails with its annotation (codes green, plates blue) and the truth's corners (orange).
public enum HTMLReport {
    /// Most photos shown as thumbnails.
    public static let thumbnailLimit = 36
    /// Thumbnail width, pixels.
    public static let thumbnailWidth = 360

    static let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]

    static func esc(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func f(_ x: Double?, _ digits: Int = 1) -> String {
        guard let x else { return "–" }
        return String(format: "%.\(digits)f", x)
    }

    /// Renders the report; `runner` re-reads the failed photos to draw them.
    public static func render(_ report: BenchReport, items: [BenchItem], runner: BenchRunner) -> String {
        var h: [String] = []
        h.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>seer bench</title><style>")
        h.append(
            "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}table{border-collapse:collapse;margin:8px 0 20px}"
                + "th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th:first-child,td:first-child{text-align:left}"
                + "th{background:#f3f3f3}h1{font-size:22px}h2{font-size:18px;margin-top:28px}.plots{display:flex;flex-wrap:wrap;gap:24px}"
                + ".grid{display:flex;flex-wrap:wrap;gap:12px}.card{width:\(thumbnailWidth)px;font-size:12px}.card img{width:100%;border:1px solid #999}"
                + ".wide{overflow-x:auto}.bad{color:#b00}.note{color:#555}svg text{font:11px system-ui,sans-serif}")
        h.append("</style></head><body>")
        let seer = report.readers.first
        h.append("<h1>seer bench: \(esc(report.read)) on \(seer?.all.photos ?? 0) photos</h1>")
        h.append("<p class=\"note\">\(esc(report.paths.joined(separator: " "))) · truth: \(esc(Set(report.truth.values).sorted().joined(separator: ", "))) · repeat \(report.repeatCount)</p><ul>")
        for r in report.readers { h.append("<li><b>\(esc(r.reader))</b>: \(esc(r.about))</li>") }
        h.append("</ul>")
        for n in report.notes { h.append("<p class=\"note\">note: \(esc(n))</p>") }

        // Accuracy table.
        h.append("<h2>Accuracy</h2><div class=\"wide\"><table><tr><th>folder</th><th>photos</th><th>expected</th>")
        for r in report.readers { h.append("<th>\(esc(r.reader)) %</th><th>correct</th><th>wrong</th><th>missed</th><th>false</th>") }
        h.append("</tr>")
        func row(_ name: String, _ pick: (ReaderSummary) -> Totals?) {
            guard let seer, let t0 = pick(seer) else { return }
            h.append("<tr><td>\(esc(name))</td><td>\(t0.photos)</td><td>\(t0.expected)</td>")
            for r in report.readers {
                if pick(r) != nil, !r.all.located {
                    h.append("<td colspan=5>n/a (no positions)</td>")
                } else if let t = pick(r) {
                    h.append("<td><b>\(f(t.correctPercent))</b></td><td>\(t.correct)</td><td>\(t.wrong)</td><td>\(t.missed)</td><td>\(t.falseReadings)</td>")
                } else {
                    h.append("<td colspan=5>–</td>")
                }
            }
            h.append("</tr>")
        }
        for c in seer?.categories ?? [] { row(c.category) { r in r.categories.first { $0.category == c.category }?.totals } }
        row("ALL") { $0.all }
        h.append("</table></div>")

        // Speed table.
        h.append("<h2>Speed and memory</h2><table><tr><th>reader</th><th>min ms</th><th>median</th><th>p95</th><th>max</th>")
        h.append("<th>decode median</th><th>recognition median</th><th>CPU median</th><th>photos/s</th><th>jobs</th><th>peak MiB</th><th>× Seer's median</th></tr>")
        for r in report.readers {
            let l = r.all.latency
            let ratio = (l?.median).flatMap { m in seer?.all.latency.map { $0.median > 0 ? m / $0.median : 0 } }
            h.append(
                "<tr><td>\(esc(r.reader))</td><td>\(f(l?.min))</td><td>\(f(l?.median))</td><td>\(f(l?.p95))</td><td>\(f(l?.max))</td>"
                    + "<td>\(f(r.all.decode?.median))</td><td>\(f(r.all.recognition?.median))</td><td>\(f(r.all.cpuMedian))</td>"
                    + "<td>\(f(r.photosPerSecond, 2))</td><td>\(r.jobs)</td><td>\(f(r.peakMemoryMiB, 0))</td><td>\(f(ratio, 2))</td></tr>")
        }
        var timing = "Seer: wall clock per photo in process, split into reading and decoding the file and recognition."
        if report.readers.contains(where: { $0.reader == "zbarimg" || $0.reader == "tesseract" }) { timing += " Command-line peers: the whole process." }
        if report.readers.contains(where: { $0.reader == "zxing-cpp" }) { timing += " zxing-cpp: the decode call plus Pillow's load." }
        h.append("</table><p class=\"note\">\(esc(timing))</p>")

        h.append("<h2>Plots</h2><div class=\"plots\">")
        h.append(latencyPlot(report))
        h.append(accuracyPlot(report))
        h.append(throughputPlot(report))
        h.append("</div>")

        // Thumbnails of what Seer got wrong.
        let byPath = Dictionary(items.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        let failed = report.photos.filter { $0.reader == "seer" && [.wrong, .missed, .falseReading].contains($0.score.outcome) }
        h.append("<h2>Photos Seer missed or misread (\(failed.count)\(failed.count > thumbnailLimit ? ", first \(thumbnailLimit) shown" : ""))</h2>")
        let corners = items.contains { if case .quads = $0.truth { true } else { false } }
        h.append("<p class=\"note\">\(report.read == "plates" ? "Blue: plates Seer read." : "Green: codes Seer read.")\(corners ? " Orange: the truth's code corners." : "")</p><div class=\"grid\">")
        for p in failed.prefix(thumbnailLimit) {
            guard let item = byPath[p.file] else { continue }
            var img = ""
            if let png = thumbnail(item, runner: runner) {
                img = "<img alt=\"\(esc(p.file))\" src=\"data:image/png;base64,\(png)\">"
            }
            let read = p.readings.isEmpty ? "nothing" : p.readings.prefix(4).joined(separator: " | ")
            h.append(
                "<div class=\"card\">\(img)<div><b class=\"bad\">\(p.score.outcome.rawValue)</b> \(esc(p.category))/\(esc((p.file as NSString).lastPathComponent))</div>"
                    + "<div>expected: \(esc(String(p.expected.prefix(80))))</div><div>read: \(esc(String(read.prefix(120))))</div></div>")
        }
        h.append("</div></body></html>")
        return h.joined(separator: "\n")
    }

    /// The photo re-read with its image, annotated, the truth's corners drawn, scaled down, PNG, base64.
    static func thumbnail(_ item: BenchItem, runner: BenchRunner) -> String? {
        guard let scan = try? runner.scan(item, includeImage: true), var image = scan.annotatedImage() else { return nil }
        if case .quads(let quads) = item.truth {
            let r = scan.report
            let s = 1 / scan.imageScale
            for q in quads {
                let pts = q.map { p -> (x: Double, y: Double) in
                    let d = toDisplayed(p, orientation: r.orientation, width: Double(r.width), height: Double(r.height))
                    return (x: d.x * s, y: d.y * s)
                }
                image.drawPolygon(pts, color: (255, 140, 0), thickness: max(2, image.width / 300))
            }
        }
        let w = min(thumbnailWidth, image.width)
        let small = image.resized(width: w, height: max(1, image.height * w / max(1, image.width)))
        guard let png = try? PNGWriter.encode(small) else { return nil }
        return Data(png).base64EncodedString()
    }

    /// A stored-grid point in the displayed photo (the inverse of ``BoofCVScoring/toStored(_:_:orientation:width:height:)``).
    public static func toDisplayed(_ p: BenchPoint, orientation: Int, width wd: Double, height hd: Double) -> BenchPoint {
        switch orientation {
        case 2: BenchPoint(wd - p.x, p.y)
        case 3: BenchPoint(wd - p.x, hd - p.y)
        case 4: BenchPoint(p.x, hd - p.y)
        case 5: BenchPoint(p.y, p.x)
        case 6: BenchPoint(wd - p.y, p.x)
        case 7: BenchPoint(wd - p.y, hd - p.x)
        case 8: BenchPoint(p.y, hd - p.x)
        default: p
        }
    }

    // MARK: plots

    static let plotWidth = 420.0, plotHeight = 260.0, left = 50.0, bottom = 36.0, top = 24.0, right = 16.0

    static func frame(_ title: String, _ body: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(plotWidth))\" height=\"\(Int(plotHeight))\" viewBox=\"0 0 \(Int(plotWidth)) \(Int(plotHeight))\">"
            + "<rect width=\"100%\" height=\"100%\" fill=\"#fff\" stroke=\"#ccc\"/><text x=\"\(Int(plotWidth / 2))\" y=\"16\" text-anchor=\"middle\" font-weight=\"bold\">\(esc(title))</text>"
            + body + "</svg>"
    }

    /// Share of photos read within each latency (cumulative, log time axis), one line per reader.
    static func latencyPlot(_ report: BenchReport) -> String {
        let series = report.readers.map { r in (r.reader, report.photos.filter { $0.reader == r.reader }.compactMap(\.milliseconds).filter { $0 > 0 }.sorted()) }
        let all = series.flatMap(\.1)
        guard let lo = all.min(), let hi = all.max() else { return frame("Latency per photo", "") }
        let l0 = floor(log10(lo)), l1 = max(l0 + 1, ceil(log10(hi)))
        let w = plotWidth - left - right, hgt = plotHeight - top - bottom
        func x(_ ms: Double) -> Double { left + (log10(ms) - l0) / (l1 - l0) * w }
        func y(_ share: Double) -> Double { top + (1 - share) * hgt }
        var b = "<line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(left + w)\" y2=\"\(y(0))\" stroke=\"#333\"/><line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(left)\" y2=\"\(y(1))\" stroke=\"#333\"/>"
        var d = l0
        while d <= l1 {
            let v = pow(10, d)
            b += "<line x1=\"\(x(v))\" y1=\"\(y(0))\" x2=\"\(x(v))\" y2=\"\(y(1))\" stroke=\"#eee\"/><text x=\"\(x(v))\" y=\"\(y(0) + 14)\" text-anchor=\"middle\">\(v >= 1 ? String(Int(v)) : String(v))</text>"
            d += 1
        }
        for s in [0.0, 0.5, 1.0] { b += "<text x=\"\(left - 6)\" y=\"\(y(s) + 4)\" text-anchor=\"end\">\(Int(s * 100))%</text>" }
        b += "<text x=\"\(left + w / 2)\" y=\"\(plotHeight - 4)\" text-anchor=\"middle\">ms per photo (log)</text>"
        for (i, (name, values)) in series.enumerated() where !values.isEmpty {
            let c = colours[i % colours.count]
            var pts = "\(x(values[0])),\(y(0))"
            for (k, v) in values.enumerated() { pts += " \(x(v)),\(y(Double(k + 1) / Double(values.count)))" }
            b += "<polyline fill=\"none\" stroke=\"\(c)\" stroke-width=\"2\" points=\"\(pts)\"/>"
            b += "<text x=\"\(left + 8)\" y=\"\(top + 14 + Double(i) * 14)\" fill=\"\(c)\">\(esc(name))</text>"
        }
        return frame("Latency per photo: share of photos done within", b)
    }

    /// Correct % per folder, a bar per reader.
    static func accuracyPlot(_ report: BenchReport) -> String {
        guard let seer = report.readers.first else { return "" }
        let cats = seer.categories.map(\.category) + ["ALL"]
        let n = Double(report.readers.count)
        let rowH = max(8.0, min(22.0, 200 / Double(cats.count)))
        let height = top + Double(cats.count) * rowH + 52
        let labelW = 110.0, w = plotWidth - labelW - right - 30
        var b = ""
        for (ci, c) in cats.enumerated() {
            let y0 = top + 8 + Double(ci) * rowH
            b += "<text x=\"\(labelW - 4)\" y=\"\(y0 + rowH * 0.7)\" text-anchor=\"end\">\(esc(String(c.suffix(18))))</text>"
            for (ri, r) in report.readers.enumerated() {
                let t = c == "ALL" ? r.all : r.categories.first { $0.category == c }?.totals
                guard let t, r.all.located else { continue }
                let bh = (rowH - 2) / n
                let len = t.correctPercent / 100 * w
                b += "<rect x=\"\(labelW)\" y=\"\(y0 + Double(ri) * bh)\" width=\"\(len)\" height=\"\(max(1, bh - 1))\" fill=\"\(colours[ri % colours.count])\"/>"
                if rowH >= 14 || ri == 0 { b += "<text x=\"\(labelW + len + 3)\" y=\"\(y0 + Double(ri) * bh + bh - 1)\">\(f(t.correctPercent))</text>" }
            }
        }
        let axisY = top + 8 + Double(cats.count) * rowH + 4
        for p in [0.0, 50, 100] { b += "<text x=\"\(labelW + p / 100 * w)\" y=\"\(axisY + 12)\" text-anchor=\"middle\">\(Int(p))%</text>" }
        for (ri, r) in report.readers.enumerated() {
            b += "<text x=\"\(labelW + Double(ri) * 90)\" y=\"\(axisY + 28)\" fill=\"\(colours[ri % colours.count])\">■ \(esc(r.reader))</text>"
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(plotWidth))\" height=\"\(Int(height))\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\" stroke=\"#ccc\"/>"
            + "<text x=\"\(Int(plotWidth / 2))\" y=\"16\" text-anchor=\"middle\" font-weight=\"bold\">Correct % per folder</text>\(b)</svg>"
    }

    /// Seer's photos per second against jobs.
    static func throughputPlot(_ report: BenchReport) -> String {
        let pts = report.throughput
        guard let maxJobs = pts.map(\.jobs).max(), let maxRate = pts.map(\.photosPerSecond).max(), maxRate > 0 else {
            return frame("Seer throughput against jobs", "")
        }
        let w = plotWidth - left - right, hgt = plotHeight - top - bottom
        let xmax = Double(max(2, maxJobs)), ymax = maxRate * 1.2
        func x(_ j: Double) -> Double { left + (j - 0.5) / (xmax) * w }
        func y(_ r: Double) -> Double { top + (1 - r / ymax) * hgt }
        var b = "<line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(left + w)\" y2=\"\(y(0))\" stroke=\"#333\"/><line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(left)\" y2=\"\(top)\" stroke=\"#333\"/>"
        for j in 1...Int(xmax) { b += "<text x=\"\(x(Double(j)))\" y=\"\(y(0) + 14)\" text-anchor=\"middle\">\(j)</text>" }
        for k in 0...4 {
            let v = ymax * Double(k) / 4
            b += "<text x=\"\(left - 6)\" y=\"\(y(v) + 4)\" text-anchor=\"end\">\(f(v))</text><line x1=\"\(left)\" y1=\"\(y(v))\" x2=\"\(left + w)\" y2=\"\(y(v))\" stroke=\"#eee\"/>"
        }
        b += "<polyline fill=\"none\" stroke=\"\(colours[0])\" stroke-width=\"2\" points=\"\(pts.map { "\(x(Double($0.jobs))),\(y($0.photosPerSecond))" }.joined(separator: " "))\"/>"
        for p in pts {
            b += "<circle cx=\"\(x(Double(p.jobs)))\" cy=\"\(y(p.photosPerSecond))\" r=\"4\" fill=\"\(colours[0])\"/><text x=\"\(x(Double(p.jobs)) + 6)\" y=\"\(y(p.photosPerSecond) - 6)\">\(f(p.photosPerSecond, 2))</text>"
        }
        b += "<text x=\"\(left + w / 2)\" y=\"\(plotHeight - 4)\" text-anchor=\"middle\">jobs (photos/s on the y axis)</text>"
        return frame("Seer throughput against jobs", b)
    }
}
