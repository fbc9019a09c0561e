/// An app's listing on Google Play, as the ledger needs to know it: the package its purchases are made in.
///
/// The service account SubLedger calls the Developer API with is a secret beside the catalog (sealed at rest),
/// not part of this value.
public struct GooglePlayListing: Hashable, Sendable, Codable {
    /// The Android application id (`packageName` in the Developer API): `com.example.app`.
    public var packageName: String
    /// The `aud` of the OIDC tokens the app's Pub/Sub push subscription sends with real-time developer
    /// notifications (the subscription's audience; by default Google uses the push endpoint's URL). Without it
    /// (and `pushServiceAccount`) the app's notifications are refused.
    public var pushAudience: String?
    /// The service account the push subscription authenticates as: the tokens' `email`.
    public var pushServiceAccount: String?

    public init(packageName: String, pushAudience: String? = nil, pushServiceAccount: String? = nil) {
        self.packageName = packageName
        self.pushAudience = pushAudience
        self.pushServiceAccount = pushServiceAccount
    }

    enum CodingKeys: String, CodingKey {
        case packageName = "package_name"
        case pushAudience = "push_audience"
        case pushServiceAccount = "push_service_account"
    }

    /// Whether the app accepts real-time developer notifications: both push settings are given.
    public var acceptsNotifications: Bool { pushAudience != nil && pushServiceAccount != nil }
}

extension GooglePlayListing {
    /// Whether `raw` is an Android application id: at most 255 characters, two or more segments joined by
    /// `.`, each a letter followed by letters, digits or `_`.
    public static func isPackageName(_ raw: String) -> Bool {
        guard raw.utf8.count <= 255 else { return false }
        let segments = raw.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count >= 2 else { return false }
        return segments.allSatisfy { segment in
            guard let first = segment.first, isLetter(first) else { return false }
            return segment.allSatisfy {
                isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_")
            }
        }
    }

    /// Whether the push settings are usable: both or neither given; the audience 1 to 2048 printable ASCII
    /// characters, the service account an address of at most 320 (`name@domain`).
    var hasValidPushSettings: Bool {
        switch (pushAudience, pushServiceAccount) {
        case (nil, nil):
            return true
        case (let audience?, let account?):
            func printable(_ text: String, _ bound: Int) -> Bool {
                (1...bound).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
            }
            let parts = account.split(separator: "@", omittingEmptySubsequences: false)
            return printable(audience, 2048) && printable(account, 320) && parts.count == 2
                && parts.allSatisfy { !$0.isEmpty }
        default:
            return false
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
