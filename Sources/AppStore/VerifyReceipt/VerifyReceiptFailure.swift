import SubLedgerCore

/// Why a receipt verification did not produce a verified receipt; never contains the receipt or secret.
public struct VerifyReceiptFailure: Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// Apple answered with a non-zero `status` (see `appleStatus`).
        public static let appleStatus = Code("appleStatus")
        /// HTTP status other than 200 (see `httpStatus`).
        public static let httpStatus = Code("httpStatus")
        /// A 200 answer that is not the expected JSON (an HTML page, a truncated body).
        public static let malformedResponse = Code("malformedResponse")
        /// The request body could not be encoded (never expected with string inputs).
        public static let malformedRequest = Code("malformedRequest")
        /// The answer did not arrive in time.
        public static let timeout = Code("timeout")
        /// The connection could not be made or broke.
        public static let connectionError = Code("connectionError")
        /// The verified receipt belongs to another app.
        public static let bundleMismatch = Code("bundleMismatch")
        /// The verified receipt lacks what the core requires.
        public static let unmappableReceipt = Code("unmappableReceipt")
        /// The answer carries a value Apple never sends (a date outside 1970-9999, an id breaking
        /// `IdentifierRule`, an out-of-range code): the same answer will come again, so retrying is futile.
        public static let impossibleValue = Code("impossibleValue")
        /// Production and sandbox each pointed to the other.
        public static let environmentLoop = Code("environmentLoop")

        /// The stable machine name.
        public var description: String { name }
    }

    /// The machine-readable reason.
    public var code: Code
    /// Apple's `status`, when the failure is Apple's answer.
    public var appleStatus: Int?
    /// The HTTP status Apple's endpoint answered with, when one was received: the wire protocol's, never one
    /// SubLedger's own API answers with (the service decides those at its HTTP edge).
    public var httpStatus: Int?
    /// The environment whose endpoint was asked last.
    public var environment: StoreEnvironment

    /// Creates a failure.
    public init(code: Code, appleStatus: Int? = nil, httpStatus: Int? = nil, environment: StoreEnvironment) {
        self.code = code
        self.appleStatus = appleStatus
        self.httpStatus = httpStatus
        self.environment = environment
    }

    /// `VerifyReceiptFailure(<code>, status: ..., http: ..., environment)`.
    public var description: String {
        var parts = [code.description]
        if let appleStatus { parts.append("status: \(appleStatus)") }
        if let httpStatus { parts.append("http: \(httpStatus)") }
        parts.append(environment.rawValue)
        return "VerifyReceiptFailure(\(parts.joined(separator: ", ")))"
    }
}
