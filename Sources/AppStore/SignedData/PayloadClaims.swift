import Foundation

/// The app and environment a signed payload claims, read before any verification to choose the app's verifier:
/// its top-level `bundleId` and `environment`, else those of the first of `data`, `summary`, `appData` and
/// `externalPurchaseToken` that is present (a notification's shapes; a transaction or renewal info states them at
/// the top). An `externalPurchaseToken` states no environment: a token whose `externalPurchaseId` starts with
/// `SANDBOX` claims the sandbox, any other production, as Apple marks them. Nothing here is trusted: the verifier
/// checks the app and environment the payload states afterwards.
public struct PayloadClaims: Decodable, Sendable, Hashable {
    /// The claimed bundle id.
    public let bundleID: String?
    /// The claimed environment, as spelled in the payload.
    public let environment: String?

    /// Reads the claims from `decoder` (a payload's top level); fails when a claim is not a string.
    public init(from decoder: any Decoder) throws {
        self.init(raw: try Raw(from: decoder))
    }

    /// The claims read from a payload's plain members (see `PlainReadablePayload`), as `JSONDecoder` reads them.
    init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain) {
        self.init(raw: try Raw(plain: members))
    }

    private init(raw: Raw) {
        let inner = raw.data ?? raw.summary ?? raw.appData ?? raw.externalPurchaseToken
        bundleID = raw.bundleId ?? inner?.bundleId
        environment =
            raw.environment ?? inner?.environment
            ?? raw.externalPurchaseToken?.externalPurchaseId.map { $0.hasPrefix("SANDBOX") ? "Sandbox" : "Production" }
    }

    /// The claims of a payload's JSON text, or `nil` when it is not a JSON object whose claims are strings.
    public static func read(_ payload: Data) -> PayloadClaims? {
        try? JSONDecoder().decode(PayloadClaims.self, from: payload)
    }

    /// The payload's claim fields (JSONDecoder skips the rest of the text without building it).
    private struct Raw: Decodable {
        struct Inner: Decodable {
            var bundleId: String?
            var environment: String?
            var externalPurchaseId: String?

            init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain) {
                bundleId = try members.string(CodingKeys.bundleId)
                environment = try members.string(CodingKeys.environment)
                externalPurchaseId = try members.string(CodingKeys.externalPurchaseId)
            }
        }
        var bundleId: String?
        var environment: String?
        var data: Inner?
        var summary: Inner?
        var appData: Inner?
        var externalPurchaseToken: Inner?

        init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain) {
            bundleId = try members.string(CodingKeys.bundleId)
            environment = try members.string(CodingKeys.environment)
            data = try members.object(CodingKeys.data, Inner.init(plain:))
            summary = try members.object(CodingKeys.summary, Inner.init(plain:))
            appData = try members.object(CodingKeys.appData, Inner.init(plain:))
            externalPurchaseToken = try members.object(CodingKeys.externalPurchaseToken, Inner.init(plain:))
        }
    }
}
