import CatalogFile
import SubLedgerCore
import Testing

/// The ownership policy as `subledger catalog apply` reads it: under `ownership` (the documented spelling, catalog
/// names) or its older synonym `ownership_policy` (stored names), each known policy is taken, absence means the
/// default, both keys may be given when they agree, and any other value refuses the whole file with the app and
/// the value named.
@Suite struct CatalogOwnershipPolicyTests {
    /// The two keys a catalog can state the policy under, each with its own names.
    enum Spelling: String, CaseIterable, Sendable {
        case ownership
        case ownershipPolicy = "ownership_policy"

        func name(of policy: OwnershipPolicy) -> String {
            switch self {
            case .ownership: policy.catalogName
            case .ownershipPolicy: policy.rawValue
            }
        }
    }

    static func catalog(policy: String?, key: String = "ownership_policy", extra: [String] = []) -> String {
        var lines = ["apps:", "  - bundle_id: com.example.policy", "    environments: [sandbox]"]
        if let policy { lines.append("    \(key): \(policy)") }
        lines += extra.map { "    \($0)" }
        lines += [
            "    products:",
            "      - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: \"1\", entitlements: [pro] }",
        ]
        return lines.joined(separator: "\n")
    }

    @Test(arguments: OwnershipPolicy.allCases)
    func eachPolicyIsRead(_ policy: OwnershipPolicy) throws {
        let read = try CatalogFile.read(Self.catalog(policy: policy.rawValue))
        #expect(read.catalog.apps.first?.ownershipPolicy == policy)
    }

    @Test(arguments: Spelling.allCases, OwnershipPolicy.allCases)
    func eachPolicyIsReadUnderEitherKey(_ spelling: Spelling, _ policy: OwnershipPolicy) throws {
        let read = try CatalogFile.read(Self.catalog(policy: spelling.name(of: policy), key: spelling.rawValue))
        #expect(read.catalog.apps.first?.ownershipPolicy == policy)
    }

    /// The names, spelt out, so a renamed case cannot silently change what a written catalog means.
    @Test func theDocumentedNamesMeanTheirPolicies() throws {
        let expected: [(String, OwnershipPolicy)] = [
            ("seed_rule", .activeAutoRenewerKeeps), ("transfer_on_restore", .latestSubmitterTakes),
            ("keep_first_owner", .originalAccountKeeps),
        ]
        for (name, policy) in expected {
            let read = try CatalogFile.read(Self.catalog(policy: name, key: "ownership"))
            #expect(read.catalog.apps.first?.ownershipPolicy == policy, "\(name)")
        }
    }

    @Test func withoutAPolicyTheAppKeepsTheDefaultRule() throws {
        let read = try CatalogFile.read(Self.catalog(policy: nil))
        #expect(read.catalog.apps.first?.ownershipPolicy == .activeAutoRenewerKeeps)
    }

    @Test(arguments: OwnershipPolicy.allCases)
    func bothKeysNamingTheSamePolicyAreRead(_ policy: OwnershipPolicy) throws {
        let text = Self.catalog(
            policy: policy.catalogName, key: "ownership", extra: ["ownership_policy: \(policy.rawValue)"])
        #expect(try CatalogFile.read(text).catalog.apps.first?.ownershipPolicy == policy)
    }

    @Test func bothKeysNamingDifferentPoliciesRefuseTheFile() {
        let text = Self.catalog(
            policy: "keep_first_owner", key: "ownership", extra: ["ownership_policy: active_auto_renewer_keeps"])
        let error = #expect(throws: CatalogFileError.self) { try CatalogFile.read(text) }
        #expect(error?.description.hasPrefix("invalid_catalog: ") == true)
        #expect(error?.message.contains("conflicting_ownership_policy") == true, "\(String(describing: error))")
        #expect(error?.message.contains("com.example.policy") == true)
        #expect(error?.message.contains("keep_first_owner") == true)
        #expect(error?.message.contains("active_auto_renewer_keeps") == true)
    }

    /// Names a policy might be guessed by (other products' words for the same ideas, another case), and the key
    /// given without a value, are refused, never read as the default.
    @Test(arguments: [
        "seed_rule", "transfer_on_restore", "keep_first_owner", "Latest_Submitter_Takes", "\"\"", "~", "",
    ])
    func anUnknownPolicyRefusesTheFile(_ value: String) {
        let error = #expect(throws: CatalogFileError.self) { try CatalogFile.read(Self.catalog(policy: value)) }
        #expect(error?.description.hasPrefix("invalid_catalog: ") == true)
        #expect(error?.message.contains("unknown_ownership_policy") == true, "\(String(describing: error))")
        #expect(error?.message.contains("com.example.policy") == true)
    }

    /// Under `ownership` only the catalog names count: the stored names, another case, and no value are refused.
    @Test(arguments: [
        "active_auto_renewer_keeps", "original_account_keeps", "latest_submitter_takes", "Keep_First_Owner", "\"\"",
        "~", "",
    ])
    func anUnknownOwnershipNameRefusesTheFile(_ value: String) {
        let error = #expect(throws: CatalogFileError.self) {
            try CatalogFile.read(Self.catalog(policy: value, key: "ownership"))
        }
        #expect(error?.message.contains("unknown_ownership_policy") == true, "\(String(describing: error))")
        #expect(error?.message.contains("com.example.policy") == true)
    }
}
