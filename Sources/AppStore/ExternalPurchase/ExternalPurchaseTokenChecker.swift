import Foundation
import SubLedgerCore

/// An external purchase token that decoded and passed every check: the values reports need.
public struct CheckedExternalPurchaseToken: Hashable, Sendable {
    /// Apple's `externalPurchaseId`: what reports name.
    public var externalPurchaseID: String
    /// Apple's `bundleId`.
    public var bundleID: String
    /// Apple's `appAppleId`.
    public var appAppleID: Int64
    /// Apple's `tokenCreationDate`.
    public var createdAt: Instant
    /// Apple's `tokenType`; `nil` for a token that is no custom link token.
    public var tokenType: ExternalPurchaseTokenType?
    /// Sandbox when the id starts with `SANDBOX`, as Apple marks sandbox tokens.
    public var environment: StoreEnvironment
}

/// Decodes the external purchase token an app received from StoreKit (base64url of a JSON object, Apple's
/// "Receiving and decoding external purchase tokens") and checks it is this app's and was created in a possible
/// moment. The token is not signed: these checks tell a mistaken token from a right one, and Apple's answer to
/// the report (`NotFoundError` for an id it never issued) is the final word.
public struct ExternalPurchaseTokenChecker: Sendable {
    /// What a token must match.
    public struct Configuration: Sendable, Hashable {
        /// The app's bundle id.
        public var bundleID: String
        /// The app's Apple id, when known; `nil` skips that check.
        public var appAppleID: Int64?
        /// How far after `now` a creation date may lie (device and server clocks differ). Default: 5 minutes.
        public var allowedClockSkewMilliseconds: Int64
        /// The longest token accepted, in bytes. Default: 4096 (Apple's tokens are a few hundred).
        public var maximumTokenBytes: Int

        /// The earliest creation date accepted: 2024-01-01, before Apple's External Purchase API (iOS 17.4,
        /// March 2024) issued its first token.
        public static let earliestCreationDate = Instant(millisecondsSince1970: 1_704_067_200_000)

        /// Creates a configuration.
        public init(
            bundleID: String, appAppleID: Int64? = nil, allowedClockSkewMilliseconds: Int64 = 5 * 60 * 1000,
            maximumTokenBytes: Int = 4096
        ) {
            self.bundleID = bundleID
            self.appAppleID = appAppleID
            self.allowedClockSkewMilliseconds = allowedClockSkewMilliseconds
            self.maximumTokenBytes = maximumTokenBytes
        }
    }

    /// Apple's limit on ids in reports (`lineItemId`), kept for `externalPurchaseId` too.
    static let maximumIdentifierLength = 128

    /// What tokens are checked against.
    public let configuration: Configuration

    /// Creates a checker.
    public init(configuration: Configuration) { self.configuration = configuration }

    /// Decodes `token` and checks it against the configuration at `now`.
    public func check(_ token: String, now: Instant) throws(ExternalPurchaseTokenError) -> CheckedExternalPurchaseToken
    {
        let decoded = try Self.decode(token, maximumBytes: configuration.maximumTokenBytes)
        guard let id = decoded.externalPurchaseID else {
            throw ExternalPurchaseTokenError(.missingField, field: "externalPurchaseId")
        }
        guard let bundleID = decoded.bundleID else {
            throw ExternalPurchaseTokenError(.missingField, field: "bundleId")
        }
        guard let appAppleID = decoded.appAppleID else {
            throw ExternalPurchaseTokenError(.missingField, field: "appAppleId")
        }
        guard let created = decoded.tokenCreationDate else {
            throw ExternalPurchaseTokenError(.missingField, field: "tokenCreationDate")
        }
        guard !id.isEmpty, id.utf8.count <= Self.maximumIdentifierLength,
            id.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else { throw ExternalPurchaseTokenError(.invalidIdentifier, field: "externalPurchaseId") }
        guard bundleID == configuration.bundleID else {
            throw ExternalPurchaseTokenError(.wrongBundle, field: "bundleId")
        }
        if let expected = configuration.appAppleID, expected != appAppleID {
            throw ExternalPurchaseTokenError(.wrongApp, field: "appAppleId")
        }
        let latest = now.millisecondsSince1970.addingReportingOverflow(configuration.allowedClockSkewMilliseconds)
        guard let createdAt = Instant(acceptedMillisecondsSince1970: created),
            createdAt >= Configuration.earliestCreationDate, latest.overflow || created <= latest.partialValue
        else { throw ExternalPurchaseTokenError(.creationDateOutOfRange, field: "tokenCreationDate") }
        var tokenType: ExternalPurchaseTokenType?
        if let raw = decoded.rawTokenType {
            guard let known = ExternalPurchaseTokenType(rawValue: raw) else {
                throw ExternalPurchaseTokenError(.unknownTokenType, field: "tokenType")
            }
            tokenType = known
        }
        return CheckedExternalPurchaseToken(
            externalPurchaseID: id, bundleID: bundleID, appAppleID: appAppleID, createdAt: createdAt,
            tokenType: tokenType, environment: decoded.environment)
    }

    /// The token's JSON, decoded: base64url (padded or not) of one JSON object with no NUL in any text.
    static func decode(_ token: String, maximumBytes: Int) throws(ExternalPurchaseTokenError) -> ExternalPurchaseToken {
        guard !token.isEmpty, token.utf8.count <= maximumBytes, let json = Base64URL.decode(token) else {
            throw ExternalPurchaseTokenError(.malformed)
        }
        // The JSON escape `\u0000` decodes to NUL; the raw byte is no valid JSON either way.
        guard !json.contains(0), String(data: json, encoding: .utf8) != nil,
            let decoded = try? JSONDecoder().decode(ExternalPurchaseToken.self, from: json)
        else { throw ExternalPurchaseTokenError(.malformed) }
        let texts = [decoded.externalPurchaseID, decoded.bundleID, decoded.rawTokenType].compactMap { $0 }
        guard !texts.contains(where: { $0.unicodeScalars.contains("\u{0}") }) else {
            throw ExternalPurchaseTokenError(.malformed)
        }
        return decoded
    }
}
