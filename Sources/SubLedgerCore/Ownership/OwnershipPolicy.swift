/// Who keeps a chain when an account other than its owner submits one of its transactions; set per app.
public enum OwnershipPolicy: String, Hashable, Sendable, Codable, CaseIterable {
    /// The default, the documents' rule: the owner keeps the chain while still actively auto-renewing it;
    /// otherwise the submitter takes it.
    case activeAutoRenewerKeeps = "active_auto_renewer_keeps"
    /// The first account bound to a chain keeps it for good.
    case originalAccountKeeps = "original_account_keeps"
    /// The chain always moves to the account that submitted it last.
    case latestSubmitterTakes = "latest_submitter_takes"

    /// Whether `OwnershipRule.resolve` asks, under this policy, if a chain's owner is still actively auto-renewing
    /// it. Only then does a contested chain's current renewal state matter, so only then is it worth reading again
    /// from the store before the rule decides (`Ingestion.refreshContestedChain`).
    public var consultsOwnersAutoRenewal: Bool {
        switch self {
        case .activeAutoRenewerKeeps: true
        case .originalAccountKeeps, .latestSubmitterTakes: false
        }
    }
}
