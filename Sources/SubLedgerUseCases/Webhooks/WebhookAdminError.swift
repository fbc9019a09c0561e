/// Why a webhook management command or route was refused. Its message never contains a secret.
public struct WebhookAdminError: Error, CustomStringConvertible, Sendable, Hashable {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CaseIterable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No app has that bundle id.
        public static let unknownApp = Code(rawValue: "unknown_app")
        /// No endpoint (that is not removed) has that id.
        public static let unknownEndpoint = Code(rawValue: "unknown_webhook_endpoint")
        /// The endpoint id is not a UUID.
        public static let invalidEndpointID = Code(rawValue: "invalid_webhook_endpoint_id")
        /// An event type in a filter is not in the catalog.
        public static let unknownEventType = Code(rawValue: "unknown_event_type")
        /// An environment in a filter is not one of Apple's.
        public static let unknownEnvironment = Code(rawValue: "unknown_environment")
        /// A date is not RFC 3339 (or YYYY-MM-DD), or a range is empty.
        public static let invalidDate = Code(rawValue: "invalid_date")
        /// A duration is not like `24h`, `30m`, `90s`, `7d` or `0`, or out of range.
        public static let invalidDuration = Code(rawValue: "invalid_duration")
        /// The description is too long or holds control characters.
        public static let invalidDescription = Code(rawValue: "invalid_description")
        /// Text holds NUL, control characters or bytes that were not UTF-8.
        public static let invalidText = Code(rawValue: "invalid_text")
        /// A delivery state filter is not pending, delivered or failed.
        public static let invalidState = Code(rawValue: "invalid_delivery_state")
        /// A limit is out of range.
        public static let invalidLimit = Code(rawValue: "invalid_limit")
        /// A replay would queue more deliveries than one replay may.
        public static let replayTooLarge = Code(rawValue: "replay_too_large")
        /// The URL's own codes (`invalid_webhook_url`, `insecure_webhook_url`, `private_webhook_address`)
        /// are passed on as they are.

        /// Every code a webhook management request can be refused with, the URL's included (docs/reference/errors.md is
        /// held against them).
        public static var allCases: [Code] {
            [
                .unknownApp, .unknownEndpoint, .invalidEndpointID, .unknownEventType, .unknownEnvironment, .invalidDate,
                .invalidDuration, .invalidDescription, .invalidText, .invalidState, .invalidLimit, .replayTooLarge,
            ] + WebhookURLError.Code.allCases.map { Code(rawValue: $0.rawValue) }
        }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A refused URL, with its own code.
    public init(_ error: WebhookURLError) {
        self.init(Code(rawValue: error.code.rawValue), error.message)
    }

    public var description: String { "\(code): \(message)" }
}
