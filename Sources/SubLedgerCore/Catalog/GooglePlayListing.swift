/// An app's listing on Google Play, as the ledger needs to know it: the package its purchases are made in.
///
/// The service account SubLedger calls the Developer API with is a secret beside the catalog (sealed at rest),
/// not part of this value.
public struct GooglePlayListing: Hashable, Sendable, Codable {
    /// The Android application id (`packageName` in the Developer API): `com.example.app`.
    public var packageName: String

    public init(packageName: String) {
        self.packageName = packageName
    }

    enum CodingKeys: String, CodingKey {
        case packageName = "package_name"
    }
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

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
