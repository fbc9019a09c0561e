import SubLedgerCore

/// A test catalog's text with the ownership policy of one app written in, the way a team writes it: under
/// `ownership` with the catalog names by default, or under the older `ownership_policy` with the stored names. The
/// ownership suites apply what `CatalogFile.read` makes of it, so the file's spelling is part of what they test.
enum CatalogText {
    /// The key the policy is written under.
    enum Spelling: String, Sendable {
        case ownership
        case ownershipPolicy = "ownership_policy"
    }

    /// `text` with `policy` written under `spelling` right after the `bundle_id` line of `bundleID`'s entry.
    static func setting(
        _ policy: OwnershipPolicy, spelling: Spelling = .ownership, for bundleID: String, in text: String
    ) -> String {
        let name = spelling == .ownership ? policy.catalogName : policy.rawValue
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append(String(line))
            let trimmed = line.drop { $0 == " " }
            if trimmed == "- bundle_id: \(bundleID)" {
                let indent = String(repeating: " ", count: line.count - trimmed.count + 2)
                lines.append("\(indent)\(spelling.rawValue): \(name)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
