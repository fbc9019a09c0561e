/// Why a webhook signature header was refused (by `subledger webhooks listen`, or by a receiver using
/// `WebhookSignature.verify`).
public struct WebhookSignatureError: Error, CustomStringConvertible, Sendable, Hashable {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The header is missing parts, repeats `t`, or a value is not in its format.
        public static let malformedHeader = Code(rawValue: "malformed_signature_header")
        /// `t` is further from the receiver's clock than the tolerance: a replay, or a clock off.
        public static let timestampOutOfTolerance = Code(rawValue: "signature_timestamp_out_of_tolerance")
        /// No `v1` matches the body under any of the secrets.
        public static let noMatchingSignature = Code(rawValue: "no_matching_signature")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
