/// Why a webhook URL or the address it resolved to was refused.
public struct WebhookURLError: Error, CustomStringConvertible, Sendable, Hashable {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CaseIterable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Not an absolute URL with a host, too long, control characters, credentials, a fragment, a bad port.
        public static let invalidURL = Code(rawValue: "invalid_webhook_url")
        /// Plain http to a host that is not loopback.
        public static let insecureURL = Code(rawValue: "insecure_webhook_url")
        /// A private, loopback, link-local or otherwise non-public address without the explicit flag.
        public static let privateAddress = Code(rawValue: "private_webhook_address")

        /// Every code above.
        public static let allCases: [Code] = [.invalidURL, .insecureURL, .privateAddress]
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
