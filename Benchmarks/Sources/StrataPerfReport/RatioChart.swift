import BenchWorkloads
import Foundation

/// A grouped bar chart of each backend's time over raw's, per workload, as SVG text: a log
/// scale, bars from the dashed 1× line, the issue's goal as a red mark over each group.
struct RatioChart {
    let title: String
    let workloads: [Workload]
    /// The backends drawn, one colour each (raw is the 1× line).
    let backends: [Backend]
    let measurements: Measurements

    // Layout, in SVG pixels.
    private let barWidth = 18.0
    private let barGap = 3.0
    private let groupPadding = 18.0
    private let left = 78.0
    private let right = 24.0
    private let top = 92.0
    private let plotHeight = 360.0
    private let bottom = 92.0

    /// The ratios drawn, `nil` where a backend does not run a workload.
    private func ratio(_ backend: Backend, _ workload: Workload) -> Double? {
        finite(measurements.ratio(backend, workload)).flatMap { $0 > 0 ? $0 : nil }
    }

    /// The width of one group's bars side by side.
    private var barsWidth: Double { Double(backends.count) * (barWidth + barGap) - barGap }
    /// The legend's width: a swatch and a name per backend, then the 1× and goal keys.
    private var legendWidth: Double { backends.reduce(0) { $0 + legendStep($1) } + 10 + 110 + 120 }
    private var width: Double {
        max(left + Double(workloads.count) * (barsWidth + 2 * groupPadding) + right, left + legendWidth + right, 640)
    }
    /// Each group's share of the plot's width.
    private var groupWidth: Double { (width - left - right) / Double(max(workloads.count, 1)) }

    /// The room `backend`'s legend entry takes.
    private func legendStep(_ backend: Backend) -> Double { 30 + Double(backend.rawValue.count) * 7.2 }
    private var height: Double { top + plotHeight + bottom }

    /// The vertical range, a little wider than every ratio, goal and 1×.
    private var range: (low: Double, high: Double) {
        var values: [Double] = [1]
        for workload in workloads {
            values += backends.compactMap { ratio($0, workload) }
            if let goal = workload.goal { values.append(goal) }
        }
        return (min(values.min()! / 1.3, 0.8), values.max()! * 1.35)
    }

    /// The y coordinate of `value` on the log scale.
    private func y(_ value: Double) -> Double {
        let (low, high) = range
        return top + plotHeight * (1 - (log10(value) - log10(low)) / (log10(high) - log10(low)))
    }

    /// The colour of `backend`'s bars.
    private func colour(_ backend: Backend) -> String {
        switch backend {
        case .raw: return "#7f7f7f"
        case .strata: return "#1f77b4"
        case .strataNoHistory: return "#8fbbe0"
        case .strataUndo: return "#9467bd"
        case .grdb: return "#2ca02c"
        case .modelFloor: return "#ff7f0e"
        }
    }

    /// The whole chart.
    func svg() -> String {
        var out: [String] = []
        out.append(##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(n(width))" height="\##(n(height))" viewBox="0 0 \##(n(width)) \##(n(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">"##)
        out.append(##"<rect width="100%" height="100%" fill="white"/>"##)
        out.append(text(title, x: width / 2, y: 26, size: 16, anchor: "middle", weight: "bold"))
        out += legend()
        out += axes()
        for (index, workload) in workloads.enumerated() { out += group(workload, at: left + Double(index) * groupWidth) }
        // The 1× line over the bars' feet.
        out.append(##"<line x1="\##(n(left))" y1="\##(n(y(1)))" x2="\##(n(width - right))" y2="\##(n(y(1)))" stroke="#333" stroke-width="1.5" stroke-dasharray="6 4"/>"##)
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    /// Swatches for the backends, the 1× line and the goal mark.
    private func legend() -> [String] {
        var out: [String] = []
        var x = left
        let y = 52.0
        for backend in backends {
            out.append(##"<rect x="\##(n(x))" y="\##(n(y - 10))" width="14" height="14" fill="\##(colour(backend))"/>"##)
            out.append(text(backend.rawValue, x: x + 20, y: y + 2, size: 13))
            x += legendStep(backend)
        }
        x += 10
        out.append(##"<line x1="\##(n(x))" y1="\##(n(y - 3))" x2="\##(n(x + 26))" y2="\##(n(y - 3))" stroke="#333" stroke-width="1.5" stroke-dasharray="6 4"/>"##)
        out.append(text("raw = 1×", x: x + 32, y: y + 2, size: 13))
        x += 110
        out.append(##"<line x1="\##(n(x))" y1="\##(n(y - 3))" x2="\##(n(x + 26))" y2="\##(n(y - 3))" stroke="#d62728" stroke-width="3"/>"##)
        out.append(text("goal (issue)", x: x + 32, y: y + 2, size: 13))
        return out
    }

    /// The log-scale grid with its labels, and both axis titles.
    private func axes() -> [String] {
        var out: [String] = []
        let (low, high) = range
        for tick in [0.1, 0.2, 0.5, 1, 1.5, 2, 3, 5, 10, 20, 50, 100, 200, 500] where tick >= low && tick <= high {
            out.append(##"<line x1="\##(n(left))" y1="\##(n(y(tick)))" x2="\##(n(width - right))" y2="\##(n(y(tick)))" stroke="#e3e3e3" stroke-width="1"/>"##)
            out.append(text(label(tick) + "×", x: left - 8, y: y(tick) + 4, size: 12, anchor: "end"))
        }
        out.append(##"<line x1="\##(n(left))" y1="\##(n(top))" x2="\##(n(left))" y2="\##(n(top + plotHeight))" stroke="#333" stroke-width="1"/>"##)
        out.append(##"<line x1="\##(n(left))" y1="\##(n(top + plotHeight))" x2="\##(n(width - right))" y2="\##(n(top + plotHeight))" stroke="#333" stroke-width="1"/>"##)
        let middle = top + plotHeight / 2
        out.append(##"<text x="22" y="\##(n(middle))" font-size="13" text-anchor="middle" transform="rotate(-90 22 \##(n(middle)))">time ÷ raw time (log scale; lower is better)</text>"##)
        out.append(text("workload (the issue's goal below each name)", x: left + (width - left - right) / 2, y: height - 14, size: 13, anchor: "middle"))
        return out
    }

    /// One workload's bars, value labels, goal mark and name.
    private func group(_ workload: Workload, at x: Double) -> [String] {
        var bars: [String] = []
        var labels: [String] = []
        let one = y(1)
        // Labels under bars below 1× ("0.95") are wider than a bar: they line up under the
        // longest such bar, every other one a line lower, so that neighbours stay apart.
        let below = backends.compactMap { ratio($0, workload) }.filter { $0 < 1 }
        let belowLine = (below.map(y).max() ?? one) + 12
        var belowCount = 0
        for (index, backend) in backends.enumerated() {
            guard let value = ratio(backend, workload) else { continue }
            let barX = x + (groupWidth - barsWidth) / 2 + Double(index) * (barWidth + barGap)
            let end = y(value)
            bars.append(##"<rect x="\##(n(barX))" y="\##(n(min(end, one)))" width="\##(n(barWidth))" height="\##(n(max(abs(one - end), 1)))" fill="\##(colour(backend))"/>"##)
            var labelY = end - 4
            if value < 1 {
                labelY = belowLine + (belowCount % 2 == 1 ? 11 : 0)
                belowCount += 1
            }
            labels.append(text(label(value), x: barX + barWidth / 2, y: labelY, size: 10, anchor: "middle", halo: true))
        }
        // Bars, then the goal mark over them, then the values over both, each on a white halo.
        var out = bars
        if let goal = workload.goal {
            let (start, end) = (x + (groupWidth - barsWidth) / 2 - 9, x + (groupWidth + barsWidth) / 2 + 9)
            out.append(##"<line x1="\##(n(start))" y1="\##(n(y(goal)))" x2="\##(n(end))" y2="\##(n(y(goal)))" stroke="#d62728" stroke-width="3"/>"##)
        }
        out += labels
        let centre = x + groupWidth / 2
        out.append(text(workload.rawValue, x: centre, y: top + plotHeight + 22, size: 13, anchor: "middle", weight: "bold"))
        out.append(text(workload.goal.map { "≤ " + label($0) + "×" } ?? "no time goal", x: centre, y: top + plotHeight + 40, size: 12, anchor: "middle", fill: "#d62728"))
        return out
    }

    /// A `<text>` element with its content escaped.
    ///
    /// With `halo`, a white outline keeps it readable over lines and bars.
    private func text(
        _ content: String, x: Double, y: Double, size: Int, anchor: String = "start", weight: String = "normal", fill: String = "#222",
        halo: Bool = false
    ) -> String {
        let escaped = content.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        let outline = halo ? #" stroke="white" stroke-width="3" paint-order="stroke""# : ""
        return ##"<text x="\##(n(x))" y="\##(n(y))" font-size="\##(size)" text-anchor="\##(anchor)" font-weight="\##(weight)" fill="\##(fill)"\##(outline)>\##(escaped)</text>"##
    }

    /// A ratio for a label: two significant digits below 10, whole numbers above.
    private func label(_ value: Double) -> String {
        value >= 10 ? String(format: "%.0f", value) : value >= 1 ? String(format: "%.1f", value) : String(format: "%.2f", value)
    }

    /// A coordinate with one decimal.
    private func n(_ value: Double) -> String { String(format: "%.1f", value) }
}
