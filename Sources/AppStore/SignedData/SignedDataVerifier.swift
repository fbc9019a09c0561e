import Foundation
import SubLedgerCore

/// Verifies App Store signed data (transactions, renewal info, notifications, app transactions) for one app.
///
/// Order of checks: JWS structure, `crit` and `alg`, certificate chain to a configured root with Apple's
/// marker OIDs (at the payload's signing date or now, per configuration; verdicts cached), ES256 signature,
/// payload shape, then the app's bundle id, Apple app id (production only, as Apple's own libraries do) and
/// environment, whose spelling must be exactly Apple's (`Sandbox`, never `sandbox` or `ProductionSandbox`).
///
/// Data from Xcode's StoreKit testing and from local testing is not signed by the App Store, so a verifier
/// configured for `Xcode` or `LocalTesting` skips the chain and signature, as Apple's App Store Server
/// Library does, and still requires the payload to name this app and exactly that environment. Such data
/// proves nothing about who made it: SubLedger builds such a verifier only for an app whose catalog lists
/// the environment (see docs/reference/catalog.md), and a `Production` or `Sandbox` verifier never skips anything.
public struct SignedDataVerifier: Sendable {
    /// Which app and environment signed data must belong to, and which roots it must chain to.
    public struct Configuration: Sendable {
        /// The app's bundle id; payloads for any other app are rejected.
        public var bundleID: String
        /// The app's Apple id; required for production, checked there only (sandbox payloads may omit it).
        public var appAppleID: Int64?
        /// The environment payloads must state.
        public var environment: StoreEnvironment
        /// Roots, validation time and chain cache. Default roots: Apple Root CA - G3.
        public var signature: JWSSignatureVerifier.Configuration

        /// Creates a configuration.
        public init(
            bundleID: String,
            appAppleID: Int64?,
            environment: StoreEnvironment,
            signature: JWSSignatureVerifier.Configuration
        ) {
            self.bundleID = bundleID
            self.appAppleID = appAppleID
            self.environment = environment
            self.signature = signature
        }
    }

    /// The configuration this verifier was made with.
    public let configuration: Configuration
    /// The chain-and-signature layer, shared by every kind of payload.
    public let signatureVerifier: JWSSignatureVerifier

    /// Creates a verifier; fails when production is configured without an Apple app id, or with no roots.
    public init(
        configuration: Configuration,
        now: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) throws(JWSVerificationError) {
        if configuration.environment == .production, configuration.appAppleID == nil {
            throw JWSVerificationError(.invalidConfiguration, detail: "production requires appAppleID")
        }
        self.configuration = configuration
        self.signatureVerifier = try JWSSignatureVerifier(configuration: configuration.signature, now: now)
    }

    /// Verifies a `signedTransactionInfo` / signed transaction and checks it is this app's, in this environment.
    public func verifyTransaction(_ token: String) async throws(JWSVerificationError) -> JWSTransactionDecodedPayload {
        try await verifyTransaction(JWSSignatureVerifier.decode(token))
    }

    /// `verifyTransaction(_:)` for a token already parsed with `JWSSignatureVerifier.decode(_:)`.
    public func verifyTransaction(_ jws: CompactJWS) async throws(JWSVerificationError) -> JWSTransactionDecodedPayload
    {
        let payload = try await verifiedPayload(jws, as: JWSTransactionDecodedPayload.self)
        try checkApp(bundleID: payload.bundleID, appAppleID: nil, checkAppAppleID: false)
        try checkEnvironment(payload.rawEnvironment)
        return payload
    }

    /// Verifies a `signedRenewalInfo` and checks its environment (renewal info carries no bundle id).
    public func verifyRenewalInfo(_ token: String) async throws(JWSVerificationError) -> JWSRenewalInfoDecodedPayload {
        let payload = try await verifiedPayload(token, as: JWSRenewalInfoDecodedPayload.self)
        try checkEnvironment(payload.rawEnvironment)
        return payload
    }

    /// Verifies a notification's `signedPayload` and checks its app and environment.
    ///
    /// The nested `signedTransactionInfo` / `signedRenewalInfo` are not verified here; see
    /// `ServerNotificationDecoder`, which verifies all three.
    public func verifyNotification(_ token: String) async throws(JWSVerificationError) -> ResponseBodyV2DecodedPayload {
        try await verifyNotification(JWSSignatureVerifier.decode(token))
    }

    /// `verifyNotification(_:)` for a token already parsed with `JWSSignatureVerifier.decode(_:)`.
    public func verifyNotification(_ jws: CompactJWS) async throws(JWSVerificationError)
        -> ResponseBodyV2DecodedPayload
    {
        let payload = try await verifiedPayload(jws, as: ResponseBodyV2DecodedPayload.self)
        try checkNotification(payload)
        return payload
    }

    /// `verifyNotification(_:)` for a notification whose payload was decoded before verification (to read the
    /// app it claims): the chain and signature are checked over the very bytes it was decoded from, and the
    /// payload is not decoded a second time.
    public func verifyNotification(_ notification: UnverifiedNotificationV2) async throws(JWSVerificationError)
        -> ResponseBodyV2DecodedPayload
    {
        try await authenticate(notification.jws, signingDate: .signedDate)
        try checkNotification(notification.payload)
        return notification.payload
    }

    /// The app and environment checks of a notification's payload.
    private func checkNotification(_ payload: ResponseBodyV2DecodedPayload) throws(JWSVerificationError) {
        let bundleID: String?
        let appAppleID: Int64?
        let environment: String?
        if let data = payload.data {
            (bundleID, appAppleID, environment) = (data.bundleID, data.appAppleID, data.rawEnvironment)
        } else if let summary = payload.summary {
            (bundleID, appAppleID, environment) = (summary.bundleID, summary.appAppleID, summary.rawEnvironment)
        } else if let appData = payload.appData {
            (bundleID, appAppleID, environment) = (appData.bundleID, appData.appAppleID, appData.rawEnvironment)
        } else if let token = payload.externalPurchaseToken {
            (bundleID, appAppleID, environment) = (token.bundleID, token.appAppleID, token.environment.rawValue)
        } else {
            (bundleID, appAppleID, environment) = (nil, nil, nil)
        }
        try checkApp(bundleID: bundleID, appAppleID: appAppleID, checkAppAppleID: true)
        try checkEnvironment(environment)
    }

    /// Verifies a signed `AppTransaction` and checks its app and environment (`receiptType`).
    ///
    /// Its chain is checked at `receiptCreationDate`, the app transaction's signing moment.
    public func verifyAppTransaction(_ token: String) async throws(JWSVerificationError) -> AppTransaction {
        let payload = try await verifiedPayload(token, as: AppTransaction.self, signingDate: .receiptCreationDate)
        try checkApp(bundleID: payload.bundleID, appAppleID: payload.appAppleID, checkAppAppleID: true)
        try checkEnvironment(payload.rawReceiptType)
        return payload
    }

    /// Verifies chain and signature, then decodes the payload as `Payload`; for `Xcode` and `LocalTesting`
    /// only decodes (see the type's discussion).
    public func verifiedPayload<Payload: Decodable>(
        _ token: String,
        as type: Payload.Type,
        signingDate: PayloadSigningDate = .signedDate
    ) async throws(JWSVerificationError) -> Payload {
        try await verifiedPayload(JWSSignatureVerifier.decode(token), as: type, signingDate: signingDate)
    }

    /// `verifiedPayload(_:as:signingDate:)` for a token already parsed with `JWSSignatureVerifier.decode(_:)`.
    public func verifiedPayload<Payload: Decodable>(
        _ jws: CompactJWS,
        as type: Payload.Type,
        signingDate: PayloadSigningDate = .signedDate
    ) async throws(JWSVerificationError) -> Payload {
        try await authenticate(jws, signingDate: signingDate)
        if let payload = Self.plainPayload(jws, as: Payload.self) { return payload }
        do {
            return try JSONDecoder().decode(Payload.self, from: jws.payload)
        } catch {
            throw JWSVerificationError(.malformedPayload, detail: "payload is not a \(Payload.self)")
        }
    }

    /// The payload read from the members `CompactJWS` located, without a JSON decoder, when `Payload` is one of a
    /// notification's three payloads (`PlainReadablePayload`) and every member is in Apple's plain form; `nil`
    /// otherwise, and the caller decodes with `JSONDecoder`. App transactions and other types, rare by
    /// comparison, always go to the decoder.
    static func plainPayload<Payload>(_ jws: CompactJWS, as type: Payload.Type) -> Payload? {
        guard let readable = Payload.self as? any PlainReadablePayload.Type, let members = jws.payloadMembers else {
            return nil
        }
        return (try? readable.init(plain: members)) as? Payload
    }

    /// Checks chain and signature of `jws.payload`; for `Xcode` and `LocalTesting` only the header's `crit`
    /// (see the type's discussion).
    private func authenticate(_ jws: CompactJWS, signingDate: PayloadSigningDate) async throws(JWSVerificationError) {
        if configuration.environment.isSignedByTheAppStore {
            // The verified bytes are `jws.payload` itself, which the caller decodes.
            _ = try await signatureVerifier.verify(jws, signingDate: signingDate)
        } else {
            // A `CompactJWS` made directly (not by `decode`) has not had its header's `crit` checked yet.
            try JWSSignatureVerifier.checkCritical(jws)
        }
    }

    private func checkApp(bundleID: String?, appAppleID: Int64?, checkAppAppleID: Bool) throws(JWSVerificationError) {
        guard bundleID == configuration.bundleID else {
            throw JWSVerificationError(.invalidAppIdentifier, detail: "bundle id does not match")
        }
        if checkAppAppleID, configuration.environment == .production, appAppleID != configuration.appAppleID {
            throw JWSVerificationError(.invalidAppIdentifier, detail: "Apple app id does not match")
        }
    }

    private func checkEnvironment(_ raw: String?) throws(JWSVerificationError) {
        guard let raw, StoreEnvironment(signedDataSpelling: raw) == configuration.environment else {
            throw JWSVerificationError(.invalidEnvironment, detail: "environment does not match")
        }
    }
}
