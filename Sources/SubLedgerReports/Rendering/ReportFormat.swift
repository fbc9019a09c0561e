import Foundation
import SubLedgerCore

/// How a report is written out: an aligned text table, JSON, or CSV. Rendering is pure.
public enum ReportFormat: String, Sendable, Hashable, CaseIterable {
    case table
    case json
    case csv

    /// The report in this format, ending with a newline. With `freshness`, the JSON has `as_of` and
    /// `pending_changes` beside the report's own keys and the table a note saying the same; CSV is rows only.
    public func render(_ report: AnyReport, freshness: ReportFreshness? = nil) -> String {
        guard let freshness else {
            switch self {
            case .table: return Self.text(report.table)
            case .json: return Self.json(report)
            case .csv: return Self.csv(report.table)
            }
        }
        switch self {
        case .table:
            var table = report.table
            table.notes.append(
                "As of \(Self.timestamp(freshness.asOf)) (\(freshness.pendingChanges) changes not projected yet).")
            return Self.text(table)
        case .json: return Self.json(FreshReport(report: report, freshness: freshness))
        case .csv: return Self.csv(report.table)
        }
    }

    /// A report with its freshness, encoded as the report's own object with the freshness's keys added.
    private struct FreshReport: Encodable {
        var report: AnyReport
        var freshness: ReportFreshness

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            try freshness.encode(to: encoder)
        }
    }

    /// The media type to answer with over HTTP.
    public var contentType: String {
        switch self {
        case .table: "text/plain; charset=utf-8"
        case .json: "application/json"
        case .csv: "text/csv; charset=utf-8"
        }
    }

    /// JSON of any report: snake_case keys, instants as `timestamp` writes them (RFC 3339 in UTC, to the second),
    /// sorted keys.
    public static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.userInfo[Instant.rfc3339CodingKey] = RFC3339.Precision.seconds
        // A ratio over an empty set can be NaN; JSON has no such number, and a report must never fail (or
        // trap) over one, so non-finite numbers are written as strings.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
        } catch {
            // Unreachable with the report types (strings, numbers, booleans, instants); answer an error document
            // rather than stopping the process.
            return #"{"error": {"code": "report_encoding_failed", "message": "the report could not be encoded"}}"#
                + "\n"
        }
    }

    /// An aligned plain-text table with its title and notes.
    public static func text(_ table: ReportTable) -> String {
        var widths = table.columns.map(\.count)
        for row in table.rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            let joined = cells.enumerated().map { index, cell in
                let width = index < widths.count ? widths[index] : cell.count
                return cell + String(repeating: " ", count: max(0, width - cell.count))
            }.joined(separator: "  ")
            return droppingTrailingWhitespace(joined)
        }
        var lines = [
            table.title, "", line(table.columns),
            widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "),
        ]
        lines += table.rows.map(line)
        if table.rows.isEmpty { lines.append("(no rows)") }
        if !table.notes.isEmpty { lines += [""] + table.notes }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `line` without its trailing whitespace, in one backward scan.
    ///
    /// Not a regex: `/\s+$/` is tried from every whitespace run's start, which is quadratic in the length of a
    /// run that is not at the end (one cell of 10,000 spaces took minutes).
    static func droppingTrailingWhitespace(_ line: String) -> String {
        guard let last = line.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(line[...last])
    }

    /// RFC 4180 CSV: a header line, then one line per row; a field is quoted when it holds a comma, a quote,
    /// a line break or edge spaces, with quotes doubled. A text field starting with `=`, `+`, `-`, `@` or a
    /// tab is prefixed with `'` so a spreadsheet does not run it as a formula (ids come from app clients).
    public static func csv(_ table: ReportTable) -> String {
        ([table.columns] + table.rows).map { $0.map(csvField).joined(separator: ",") }.joined(separator: "\r\n")
            + "\r\n"
    }

    static func csvField(_ value: String) -> String {
        var field = value
        if let first = field.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first), Double(field) == nil {
            field = "'" + field
        }
        let needsQuotes =
            field.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
            || field.hasPrefix(" ") || field.hasSuffix(" ")
        return needsQuotes ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
    }

    /// An instant as RFC 3339 in UTC, to the second (`2025-01-31T12:00:00Z`): `RFC3339.format`, the fraction
    /// truncated toward the past.
    public static func timestamp(_ instant: Instant) -> String {
        RFC3339.format(instant, precision: .seconds)
    }

    /// A UTC date (`2025-01-31`).
    public static func day(_ instant: Instant) -> String {
        RFC3339.day(instant)
    }

    /// Milli-units as a decimal amount (`9990` → `9.99`).
    public static func amount(milli: Int64) -> String {
        let sign = milli < 0 ? "-" : ""
        let magnitude = milli.magnitude
        let fraction = String(magnitude % 1000)
        let padded = String(repeating: "0", count: 3 - fraction.count) + fraction
        // At most two trailing zeros go (`.500` → `.50`, `.000` → `.00`).
        let zeros = min(2, padded.reversed().prefix { $0 == "0" }.count)
        let trimmed = String(padded.dropLast(zeros))
        return sign + String(magnitude / 1000) + "."
            + (trimmed.isEmpty ? "00" : trimmed.count == 1 ? trimmed + "0" : trimmed)
    }
}
