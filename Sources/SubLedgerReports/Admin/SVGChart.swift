/// Inline SVG charts for the admin page: every label escaped, every number written out.
enum SVGChart {
    /// One labelled value of a series.
    struct Point {
        var label: String
        var value: Int
    }

    /// One stacked bar: its label and its segments (series name, value, colour).
    struct Stack {
        var label: String
        var segments: [(name: String, value: Int, color: String)]
    }

    /// A line over a filled area, with the maximum, first and last values labelled.
    static func area(_ points: [Point], title: String, width: Int = 720, height: Int = 220) -> String {
        let left = 56
        let right = 16
        let top = 16
        let bottom = 28
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let maximum = max(points.map(\.value).max() ?? 0, 1)
        func x(_ index: Int) -> Int {
            left + (points.count > 1 ? index * plotWidth / (points.count - 1) : plotWidth / 2)
        }
        func y(_ value: Int) -> Int { top + plotHeight - value * plotHeight / maximum }
        var svg = open(title: title, width: width, height: height)
        svg += axes(left: left, top: top, plotWidth: plotWidth, plotHeight: plotHeight, maximum: maximum)
        if !points.isEmpty {
            let line = points.enumerated().map { "\(x($0.offset)),\(y($0.element.value))" }.joined(separator: " ")
            let baseline = top + plotHeight
            svg += "<polygon class=\"area\" points=\"\(x(0)),\(baseline) \(line) \(x(points.count - 1)),\(baseline)\"/>"
            svg += "<polyline class=\"line\" points=\"\(line)\"/>"
            for (index, point) in points.enumerated() {
                svg +=
                    "<circle cx=\"\(x(index))\" cy=\"\(y(point.value))\" r=\"2\"><title>\(HTML.escape(point.label)): \(point.value)</title></circle>"
            }
            svg += text(x: x(0), y: height - 8, anchor: "start", HTML.escape(points[0].label))
            svg += text(
                x: x(points.count - 1), y: height - 8, anchor: "end", HTML.escape(points[points.count - 1].label))
            svg += text(
                x: x(points.count - 1), y: max(y(points[points.count - 1].value) - 6, 12), anchor: "end",
                String(points[points.count - 1].value))
        }
        return svg + "</svg>"
    }

    /// Horizontal stacked bars, one per row, with each row's total at its end and a legend.
    static func stackedBars(_ stacks: [Stack], legend: [(name: String, color: String)], title: String, width: Int = 720)
        -> String
    {
        let labelWidth = 200
        let rowHeight = 24
        let top = 28
        let height = top + max(stacks.count, 1) * rowHeight + 8
        let plotWidth = width - labelWidth - 70
        let maximum = max(stacks.map { $0.segments.reduce(0) { $0 + $1.value } }.max() ?? 0, 1)
        var svg = open(title: title, width: width, height: height)
        var legendX = 0
        for entry in legend {
            svg += "<rect x=\"\(legendX)\" y=\"4\" width=\"10\" height=\"10\" fill=\"\(entry.color)\"/>"
            svg += text(x: legendX + 14, y: 13, anchor: "start", HTML.escape(entry.name))
            legendX += 24 + entry.name.count * 7
        }
        for (row, stack) in stacks.enumerated() {
            let y = top + row * rowHeight
            svg += text(x: labelWidth - 6, y: y + 15, anchor: "end", HTML.escape(stack.label))
            var x = labelWidth
            for segment in stack.segments where segment.value > 0 {
                let segmentWidth = max(1, segment.value * plotWidth / maximum)
                svg +=
                    "<rect x=\"\(x)\" y=\"\(y + 3)\" width=\"\(segmentWidth)\" height=\"\(rowHeight - 6)\" fill=\"\(segment.color)\">"
                svg +=
                    "<title>\(HTML.escape(stack.label)) \(HTML.escape(segment.name)): \(segment.value)</title></rect>"
                x += segmentWidth
            }
            svg += text(x: x + 4, y: y + 15, anchor: "start", String(stack.segments.reduce(0) { $0 + $1.value }))
        }
        return svg + "</svg>"
    }

    /// Vertical bars in groups (one group per label, one bar per series), each value written above its bar.
    static func groupedBars(
        _ groups: [(label: String, values: [Int])], series: [(name: String, color: String)], title: String,
        width: Int = 720, height: Int = 240
    ) -> String {
        let left = 56
        let right = 8
        let top = 28
        let bottom = 28
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let maximum = max(groups.flatMap(\.values).max() ?? 0, 1)
        let groupWidth = groups.isEmpty ? plotWidth : plotWidth / groups.count
        let barWidth = max(2, (groupWidth - 6) / max(series.count, 1))
        var svg = open(title: title, width: width, height: height)
        svg += axes(left: left, top: top, plotWidth: plotWidth, plotHeight: plotHeight, maximum: maximum)
        var legendX = left
        for entry in series {
            svg += "<rect x=\"\(legendX)\" y=\"4\" width=\"10\" height=\"10\" fill=\"\(entry.color)\"/>"
            svg += text(x: legendX + 14, y: 13, anchor: "start", HTML.escape(entry.name))
            legendX += 24 + entry.name.count * 7
        }
        for (index, group) in groups.enumerated() {
            let groupX = left + index * groupWidth + 3
            for (seriesIndex, value) in group.values.enumerated() where seriesIndex < series.count {
                let barHeight = value * plotHeight / maximum
                let x = groupX + seriesIndex * barWidth
                let y = top + plotHeight - barHeight
                svg +=
                    "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(barWidth - 1)\" height=\"\(barHeight)\" fill=\"\(series[seriesIndex].color)\">"
                svg +=
                    "<title>\(HTML.escape(group.label)) \(HTML.escape(series[seriesIndex].name)): \(value)</title></rect>"
                if groups.count <= 16 {
                    svg += text(x: x + barWidth / 2, y: y - 2, anchor: "middle", String(value), size: 9)
                }
            }
            if groups.count <= 16 || index % max(1, groups.count / 8) == 0 {
                svg += text(x: groupX + groupWidth / 2, y: height - 8, anchor: "middle", HTML.escape(group.label))
            }
        }
        return svg + "</svg>"
    }

    private static func open(title: String, width: Int, height: Int) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" "
            + "role=\"img\" aria-label=\"\(HTML.escape(title))\"><title>\(HTML.escape(title))</title>"
    }

    private static func axes(left: Int, top: Int, plotWidth: Int, plotHeight: Int, maximum: Int) -> String {
        "<line class=\"axis\" x1=\"\(left)\" y1=\"\(top)\" x2=\"\(left)\" y2=\"\(top + plotHeight)\"/>"
            + "<line class=\"axis\" x1=\"\(left)\" y1=\"\(top + plotHeight)\" x2=\"\(left + plotWidth)\" y2=\"\(top + plotHeight)\"/>"
            + text(x: left - 4, y: top + 4, anchor: "end", String(maximum))
            + text(x: left - 4, y: top + plotHeight, anchor: "end", "0")
    }

    /// A text element; `escapedContent` must already be escaped (numbers need nothing).
    private static func text(x: Int, y: Int, anchor: String, _ escapedContent: String, size: Int = 11) -> String {
        "<text x=\"\(x)\" y=\"\(y)\" text-anchor=\"\(anchor)\" font-size=\"\(size)\">\(escapedContent)</text>"
    }
}
