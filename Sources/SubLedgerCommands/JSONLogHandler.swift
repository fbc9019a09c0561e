import Foundation
import Logging
import OTel

/// How a long-running command writes its log: `text` (swift-log's lines, the default) or `json` (one JSON object a
/// line, `JSONLogHandler`), for log collectors that parse fields.
enum LogFormat: String, CaseIterable, Sendable {
    case text
    case json
}

/// Writes each record as one line holding one JSON object: `timestamp` (RFC 3339, UTC, milliseconds), `level`,
/// `label`, `message`, `request_id` when the record carries Hummingbird's request id (`hb.request.id`), then the
/// metadata (with `trace_id`, `span_id` and `trace_flags` for a record logged inside a traced span, from the metadata
/// provider `ProcessLogFormat` installs) flattened into string fields (a nested dictionary's keys joined with dots, a list as its description).
/// A metadata key that is one of those names is written as `metadata.<key>`. Strings are escaped as JSON requires
/// (quotes, backslashes, control characters); other characters are written as UTF-8.
struct JSONLogHandler: LogHandler {
    /// The metadata key Hummingbird gives each request's logger.
    static let requestIDKey = "hb.request.id"
    private static let reservedFields: Set<String> = ["timestamp", "level", "label", "message", "request_id"]

    let label: String
    let write: @Sendable (String) -> Void
    let now: @Sendable () -> Date
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(
        label: String, metadataProvider: Logger.MetadataProvider? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        write: @escaping @Sendable (String) -> Void
    ) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.now = now
        self.write = write
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        write(
            Self.line(timestamp: now(), level: event.level, label: label, message: "\(event.message)", metadata: merged)
        )
    }

    /// One record as a JSON object and a newline.
    static func line(
        timestamp: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata
    ) -> String {
        var fields: [(String, String)] = [
            ("timestamp", rfc3339(timestamp)), ("level", level.rawValue), ("label", label), ("message", message),
        ]
        var flat: [(String, String)] = []
        for (key, value) in metadata {
            if key == requestIDKey {
                fields.append(("request_id", "\(value)"))
            } else {
                flatten(key, value, into: &flat)
            }
        }
        for (key, value) in flat.sorted(by: { $0.0 < $1.0 }) {
            fields.append((reservedFields.contains(key) ? "metadata." + key : key, value))
        }
        var out = "{"
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { out += "," }
            appendString(key, to: &out)
            out += ":"
            appendString(value, to: &out)
        }
        out += "}\n"
        return out
    }

    private static func flatten(_ key: String, _ value: Logger.Metadata.Value, into fields: inout [(String, String)]) {
        switch value {
        case .string(let text): fields.append((key, text))
        case .stringConvertible(let convertible): fields.append((key, convertible.description))
        case .array: fields.append((key, value.description))
        case .dictionary(let dictionary):
            for (inner, innerValue) in dictionary { flatten(key + "." + inner, innerValue, into: &fields) }
        }
    }

    /// `text` as a JSON string: `"` and `\` escaped, control characters as `\n`, `\r`, `\t`, `\b`, `\f` or `\u00XX`.
    static func appendString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += String(format: "\\u%04x", UInt32(scalar.value))
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `date` as RFC 3339 in UTC with milliseconds, e.g. `2026-11-26T04:30:00.123Z`.
    static func rfc3339(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds.quotientAndRemainderFlooring(by: 1000).quotient)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec,
            Int32(milliseconds.quotientAndRemainderFlooring(by: 1000).remainder))
    }
}

extension Int64 {
    /// Quotient rounded toward negative infinity and a remainder in 0..<divisor (dates before 1970 included).
    fileprivate func quotientAndRemainderFlooring(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (q, r) = quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}

/// Installs `format` as the process's log output: every logger created from now on (`Logger(label:)`, in SubLedger,
/// Hummingbird and the clients) writes to standard error, `TextLogHandler`'s lines (swift-log's own) for `text`,
/// `JSONLogHandler`'s for `json`. Once per process (swift-log's bootstrap cannot be repeated).
enum ProcessLogFormat {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed = false

    static func install(_ format: LogFormat) {
        lock.lock()
        defer { lock.unlock() }
        guard !installed else { return }
        installed = true
        guard format == .json else {
            // As swift-log's default handler: no metadata provider (traces' ids are written in `json` only).
            LoggingSystem.bootstrap { label in TextLogHandler(label: label) }
            return
        }
        // The current span's ids on every record logged inside one (docs/guides/operate.md, "Traces"); none when traces
        // are off, where there is no OpenTelemetry span context to read.
        LoggingSystem.bootstrap(
            { label, provider in
                JSONLogHandler(label: label, metadataProvider: provider) { line in
                    FileHandle.standardError.write(Data(line.utf8))
                }
            }, metadataProvider: OTel.makeLoggingMetadataProvider())
    }
}
