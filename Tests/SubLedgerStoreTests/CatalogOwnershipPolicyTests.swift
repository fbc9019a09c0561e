import CatalogFile
import SubLedgerCore
import Testing

/// `ownership_policy` as `subledger catalog apply` reads it: each known policy is taken, absence means the default,
/// and any other value refuses the whole file with the app and the value named.
@Suite struct CatalogOwnershipPolicyTests {
    static func catalog(policy: String?) -> String {
        var lines = ["apps:", "  - bundle_id: com.example.policy", "    environments: [sandbox]"]
        if let policy { lines.append("    ownership_policy: \(policy)") }
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

    @Test func withoutAPolicyTheAppKeepsTheDefaultRule() throws {
        let read = try CatalogFile.read(Self.catalog(policy: nil))
        #expect(read.catalog.apps.first?.ownershipPolicy == .activeAutoRenewerKeeps)
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
}
