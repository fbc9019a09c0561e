import Foundation
import SubLedgerCore

/// The checks every webhook management input passes, the same for the command line and the routes, before
/// anything is stored: the text, the filters, dates and durations.
public enum WebhookAdminInput {
    /// The longest description, in characters (the schema's bound).
    public static let maximumDescriptionLength = 500
    /// The longest rotation overlap.
    public static let maximumRotationOverlapSeconds: Int64 = 30 * 86_400
    /// The rotation overlap when none is given: a day.
    public static let defaultRotationOverlapSeconds: Int64 = 86_400
    /// Most events one replay queues.
    public static let maximumReplay = 10_000
    /// Deliveries listed by default, and at most.
    public static let defaultDeliveriesLimit = 50
    public static let maximumDeliveriesLimit = 1_000

    /// `raw` unless it holds NUL or other control characters, or U+FFFD (what invalid UTF-8 decodes to).
    public static func text(_ raw: String, _ what: String) throws(WebhookAdminError) -> String {
        guard isClean(raw) else {
            throw WebhookAdminError(.invalidText, "\(what) must be UTF-8 text without NUL or control characters")
        }
        return raw
    }

    /// An optional description: trimmed, empty means none.
    public static func description(_ raw: String?) throws(WebhookAdminError) -> String? {
        guard let raw else { return nil }
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return nil }
        guard isClean(trimmed) else {
            throw WebhookAdminError(
                .invalidText, "the description must be UTF-8 text without NUL or control characters")
        }
        guard trimmed.count <= maximumDescriptionLength else {
            throw WebhookAdminError(
                .invalidDescription, "the description has at most \(maximumDescriptionLength) characters")
        }
        return trimmed
    }

    /// Event type names, each known; duplicates dropped, order kept. Comma-separated items are split.
    public static func eventTypes(_ raw: [String]) throws(WebhookAdminError) -> [String] {
        var names: [String] = []
        for item in raw.flatMap({ $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }) {
            guard WebhookEventTypeNames.isKnown(item) else {
                let shown = isClean(item) && item.utf8.count <= 100 ? "'\(item)'" : "an event type"
                throw WebhookAdminError(
                    .unknownEventType,
                    "\(shown) is not an event type; known types: \(WebhookEventTypeNames.all.joined(separator: ", "))")
            }
            if !names.contains(item) { names.append(item) }
        }
        return names
    }

    /// Environments as Apple spells them (any letter case accepted); duplicates dropped.
    public static func environments(_ raw: [String]) throws(WebhookAdminError) -> [String] {
        var names: [String] = []
        for item in raw.flatMap({ $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }) {
            guard
                let environment = StoreEnvironment.allCases.first(where: {
                    $0.rawValue.lowercased() == item.lowercased()
                })
            else {
                throw WebhookAdminError(
                    .unknownEnvironment,
                    "environments are \(StoreEnvironment.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if !names.contains(environment.rawValue) { names.append(environment.rawValue) }
        }
        return names
    }

    /// An endpoint id: a UUID, lowercased.
    public static func endpointID(_ raw: String) throws(WebhookAdminError) -> String {
        guard raw.utf8.count == 36, let uuid = UUID(uuidString: raw) else {
            throw WebhookAdminError(.invalidEndpointID, "an endpoint id is a UUID (from `webhooks list`)")
        }
        return uuid.uuidString.lowercased()
    }

    /// A moment: RFC 3339 (`2026-11-22T10:00:00Z`, fractions and offsets allowed, as `RFC3339.parse` reads
    /// them) or a day (`2026-11-22`, midnight UTC).
    public static func instant(_ raw: String, _ what: String) throws(WebhookAdminError) -> Instant {
        let text = raw.trimmingCharacters(in: .whitespaces)
        // A day alone is that day's first instant; `RFC3339.parse` checks that the day exists.
        if let instant = RFC3339.parse(text.utf8.count == 10 ? text + "T00:00:00Z" : text) { return instant }
        throw WebhookAdminError(
            .invalidDate, "\(what) must be an RFC 3339 time like 2026-11-22T10:00:00Z or a day like 2026-11-22")
    }

    /// A duration in seconds: a whole number followed by `s`, `m`, `h` or `d` (`24h`), or `0`.
    public static func duration(_ raw: String, _ what: String, maximum: Int64) throws(WebhookAdminError) -> Int64 {
        let text = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        var seconds: Int64?
        if text == "0" {
            seconds = 0
        } else if let unit = text.last, let factor = units[unit], text.count <= 12,
            let number = Int64(text.dropLast()), number >= 0
        {
            seconds = number.multipliedReportingOverflow(by: factor).overflow ? nil : number * factor
        }
        guard let seconds, seconds <= maximum else {
            throw WebhookAdminError(
                .invalidDuration,
                "\(what) is a duration like 24h, 30m, 90s or 7d (at most \(maximum / 86_400) days), or 0")
        }
        return seconds
    }

    /// A delivery state filter.
    public static func deliveryState(_ raw: String?) throws(WebhookAdminError) -> String? {
        guard let raw, !raw.isEmpty else { return nil }
        guard ["pending", "delivered", "failed"].contains(raw) else {
            throw WebhookAdminError(.invalidState, "the state is pending, delivered or failed")
        }
        return raw
    }

    /// A listing limit.
    public static func limit(_ value: Int?) throws(WebhookAdminError) -> Int {
        guard let value else { return defaultDeliveriesLimit }
        guard (1...maximumDeliveriesLimit).contains(value) else {
            throw WebhookAdminError(.invalidLimit, "the limit is between 1 and \(maximumDeliveriesLimit)")
        }
        return value
    }

    /// A bundle id as the catalog holds them.
    public static func bundleID(_ raw: String) throws(WebhookAdminError) -> String {
        guard IdentifierRule.bundleID.accepts(raw) else {
            throw WebhookAdminError(.unknownApp, "no app has that bundle id (\(IdentifierRule.bundleID.summary))")
        }
        return raw
    }

    static func isClean(_ raw: String) -> Bool {
        raw.unicodeScalars.allSatisfy { !($0.value < 0x20 || $0.value == 0x7F || $0 == "\u{FFFD}") }
    }
}
