/// The idempotency keys of ledger entries, each derived only from the facts that caused the entry.
///
/// `<env>` is the environment's raw value (`Production`, `Sandbox`, ...); instants are milliseconds.
/// - `grant:<env>:<transactionID>` and `extend:<env>:<transactionID>`
/// - `credit:<env>:<transactionID>` (consumable purchase)
/// - `revoke:<env>:<transactionID>:<revocationMs>` (refund, Family Sharing revocation, or upgrade)
/// - `debit:<env>:<transactionID>:<revocationMs>` (consumable refund)
/// - `restore:<env>:<transactionID>:<revocationMs>` (reversal of that revocation)
/// - `credit:<env>:<transactionID>:reversal:<revocationMs>` (reversal of a consumable refund)
/// - `transferOut:<env>:<chainID>:<sequence>:<from>-><to>:<transactionID>` and the same with
///   `transferIn`, where `sequence` is the binding change's position in the chain's history.
/// - `debit:<env>:<chainID>:merge:<sequence>:<from>-><to>:<atMs>` and the same with `credit`: the
///   credits an account merge moved (`sequence` is the chain's count of binding changes after the merge).
/// Account ids cannot contain `:` or `>` (see `AccountID`), so keys are unambiguous.
public enum IdempotencyKey {
    public static func grant(_ environment: StoreEnvironment, transactionID: String) -> String {
        "grant:\(environment.rawValue):\(transactionID)"
    }

    public static func extend(_ environment: StoreEnvironment, transactionID: String) -> String {
        "extend:\(environment.rawValue):\(transactionID)"
    }

    public static func credit(_ environment: StoreEnvironment, transactionID: String) -> String {
        "credit:\(environment.rawValue):\(transactionID)"
    }

    public static func revoke(
        _ environment: StoreEnvironment,
        transactionID: String,
        revokedAt: Instant
    ) -> String {
        "revoke:\(environment.rawValue):\(transactionID):\(revokedAt.millisecondsSince1970)"
    }

    public static func debit(_ environment: StoreEnvironment, transactionID: String, revokedAt: Instant) -> String {
        "debit:\(environment.rawValue):\(transactionID):\(revokedAt.millisecondsSince1970)"
    }

    public static func restore(
        _ environment: StoreEnvironment,
        transactionID: String,
        revokedAt: Instant
    ) -> String {
        "restore:\(environment.rawValue):\(transactionID):\(revokedAt.millisecondsSince1970)"
    }

    public static func creditReversal(
        _ environment: StoreEnvironment,
        transactionID: String,
        revokedAt: Instant
    ) -> String {
        "credit:\(environment.rawValue):\(transactionID):reversal:\(revokedAt.millisecondsSince1970)"
    }

    public static func transfer(
        _ kind: LedgerEntry.Kind,
        change: BindingChange,
        from: AccountID,
        transactionID: String
    ) -> String {
        "\(kind.rawValue):\(change.chain.environment.rawValue):\(change.chain.chainID):"
            + "\(change.sequence):\(from.rawValue)->\(change.to.rawValue):\(transactionID)"
    }

    public static func mergedCredits(
        _ kind: LedgerEntry.Kind, chain: ChainKey, sequence: Int, from: AccountID, into: AccountID, at: Instant
    ) -> String {
        "\(kind.rawValue):\(chain.environment.rawValue):\(chain.chainID):merge:\(sequence):"
            + "\(from.rawValue)->\(into.rawValue):\(at.millisecondsSince1970)"
    }
}
