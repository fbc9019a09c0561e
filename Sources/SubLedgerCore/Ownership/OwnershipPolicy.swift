/// Who keeps a chain when an account other than its owner submits one of its transactions; set per app.
///
/// Each policy has two names. The raw value is the stored name: the `apps.ownership_policy` column, and the name
/// reports, webhooks and the API carry. `catalogName` is the name a catalog file gives under `ownership:`, the
/// documented spelling; the raw value stays accepted under the older key `ownership_policy:`.
public enum OwnershipPolicy: String, Hashable, Sendable, Codable, CaseIterable {
    /// The default, the documents' rule: the owner keeps the chain while still actively auto-renewing it;
    /// otherwise the submitter takes it.
    case activeAutoRenewerKeeps = "active_auto_renewer_keeps"
    /// The first account bound to a chain keeps it for good.
    case originalAccountKeeps = "original_account_keeps"
    /// The chain always moves to the account that submitted it last.
    case latestSubmitterTakes = "latest_submitter_takes"

    /// The policy's name under the catalog's `ownership:` key: `seed_rule` (the documents' rule, the default),
    /// `transfer_on_restore`, `keep_first_owner`.
    public var catalogName: String {
        switch self {
        case .activeAutoRenewerKeeps: "seed_rule"
        case .latestSubmitterTakes: "transfer_on_restore"
        case .originalAccountKeeps: "keep_first_owner"
        }
    }

    /// The policy a catalog's `ownership:` names, if it names one; exact spelling only, like the raw values.
    public init?(catalogName: String) {
        guard let policy = Self.allCases.first(where: { $0.catalogName == catalogName }) else { return nil }
        self = policy
    }

    /// Whether `OwnershipRule.resolve` asks, under this policy, if a chain's owner is still actively auto-renewing
    /// it. Only then does a contested chain's current renewal state matter, so only then is it worth reading again
    /// from the store before the rule decides (`Ingestion.refreshContestedChain`).
    public var consultsOwnersAutoRenewal: Bool {
        switch self {
        case .activeAutoRenewerKeeps: true
        case .originalAccountKeeps, .latestSubmitterTakes: false
        }
    }

    /// Whether a purchase nobody submitted that does not continue the owner's subscription (bought on the same
    /// store account after the owner's had lapsed, and seen first in a notification or a poll) is the owner's.
    /// Only under `originalAccountKeeps`, where everything on the chain is. Under the other policies it waits
    /// unclaimed for the account that submits it: the chain's owner, or another account the policy lets take it.
    public var ownerTakesPurchasesAfterLapse: Bool {
        switch self {
        case .originalAccountKeeps: true
        case .activeAutoRenewerKeeps, .latestSubmitterTakes: false
        }
    }
}
