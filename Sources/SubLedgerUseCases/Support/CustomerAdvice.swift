import SubLedgerCore

/// What a support agent should tell the customer about one chain: a short plain sentence derived from the
/// chain's state now, its owner and its renewal info. Pure: the instant is an argument.
enum CustomerAdvice {
    /// The advice for `chain` in `state` at `now`. `expectedAccount` is the account the customer speaks for
    /// (the account looked up, or the one that created the order behind an app account token); when another
    /// account owns the chain, that comes first, because it explains "I paid and got nothing".
    static func advice(
        for chain: ChainSnapshot, state: ChainState, expectedAccount: AccountID?, now: Instant
    ) -> String {
        var sentences: [String] = []
        guard let owner = chain.header.owner else {
            return
                "\(storeName(chain)) has this purchase but no account has claimed it yet: ask the customer to open the app, "
                + "sign in to their account and restore purchases."
        }
        if let expectedAccount, expectedAccount != owner {
            sentences.append(
                "Purchase made or restored while signed in as another account: owned by account \(owner), "
                    + "not \(expectedAccount). Ask the customer to sign in as \(owner).")
        }
        if let transfer = chain.bindingChanges.last, let from = transfer.from {
            sentences.append(
                "It moved from account \(from) to \(owner) on \(day(transfer.at)) (\(transfer.reason.rawValue)).")
        }
        sentences.append(stateSentence(chain, state: state, now: now))
        return sentences.joined(separator: " ")
    }

    /// The store that sold `chain`, as the customer knows it: the one that holds the purchase and charges for it.
    static func storeName(_ chain: ChainSnapshot) -> String {
        let store = ChainRefreshRoute(of: chain).store
        return switch store {
        case .appStore: "Apple"
        case .googlePlay: "Google Play"
        default: "the web checkout (\(store.displayName))"
        }
    }

    /// The state in words.
    static func stateSentence(_ chain: ChainSnapshot, state: ChainState, now: Instant) -> String {
        let latest = chain.latestTransaction(at: now)
        let store = storeName(chain)
        switch state {
        case .revoked:
            let revocation = latest?.revocation(inForceAt: now)
            let date = revocation.map { day($0.revocationDate) } ?? "an unknown date"
            if revocation?.isFamilySharing == true {
                return "Family Sharing of this purchase ended on \(date); access was revoked."
            }
            return "Refunded on \(date); access was revoked."
        case .upgradedAway:
            return "Upgraded to another product on \(latest?.upgradeMoment.map(day) ?? "an unknown date"); "
                + "the new subscription carries the access."
        case .gracePeriod:
            let until = chain.header.renewalInfo?.gracePeriodExpiresDate.map(day) ?? "the end of the grace period"
            return "The last payment failed; access continues until \(until) while \(store) retries. "
                + "Ask the customer to update their payment method."
        case .billingRetry:
            return "The last payment failed; access is paused while \(store) retries the charge. "
                + "Ask the customer to update their payment method."
        case .expired(let reason):
            let date = chain.header.latestExpiry.map(day) ?? "an unknown date"
            switch reason {
            case .voluntary: return "Expired on \(date) after the customer turned off auto-renew."
            case .billingError: return "Expired on \(date): \(store) could not collect the payment."
            case .priceIncreaseDeclined: return "Expired on \(date): the customer declined a price increase."
            case .productUnavailable: return "Expired on \(date): the product was no longer available."
            case .periodEnded: return "The purchased period ended on \(date)."
            case .other, .unknown: return "Expired on \(date)."
            }
        case .active:
            switch chain.header.productType {
            case .autoRenewable:
                let until = latest?.transaction.expiresDate.map(day) ?? chain.header.latestExpiry.map(day) ?? "?"
                if chain.header.renewalInfo?.willAutoRenew == false {
                    return "Active until \(until); auto-renew is off, so it ends then."
                }
                return "Active until \(until), renews automatically."
            case .nonRenewing:
                return
                    "Active until \(chain.header.latestExpiry.map(day) ?? "the end of its period"); it does not renew."
            case .consumable:
                return "Purchased on \(latest.map { day($0.transaction.purchaseDate) } ?? "?"); "
                    + "its credits went to account \(chain.header.owner?.rawValue ?? "?")."
            case .nonConsumable:
                return "Purchased on \(latest.map { day($0.transaction.purchaseDate) } ?? "?"); access is permanent."
            }
        }
    }

    /// `2026-12-01` (UTC).
    static func day(_ instant: Instant) -> String {
        RFC3339.day(instant)
    }
}
