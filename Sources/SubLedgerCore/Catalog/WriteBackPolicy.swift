/// What SubLedger tells Apple on its own after an apply commits, per app (both need the app's App Store Server API
/// key; docs/reference/catalog.md).
///
/// Catalog format (per app, every key optional; absent means off):
/// ```yaml
/// write_back: { app_account_tokens: true, finish_transactions: true }
/// ```
public struct WriteBackPolicy: Hashable, Sendable, Codable {
    /// Set App Account Token when a chain is bound to an account (a claim or a transfer) and its transactions do
    /// not already name that account, so Apple's later payloads of the chain arrive claimed. Default `false`.
    public var appAccountTokens: Bool
    /// Finish Transaction once a consumable or non-consumable has been credited to an account, so a device that
    /// never finished it (the app crashed after paying) stops redelivering it. Default `false`.
    public var finishTransactions: Bool

    public init(appAccountTokens: Bool = false, finishTransactions: Bool = false) {
        self.appAccountTokens = appAccountTokens
        self.finishTransactions = finishTransactions
    }

    /// Nothing is written back.
    public static let off = WriteBackPolicy()

    enum CodingKeys: String, CodingKey {
        case appAccountTokens = "app_account_tokens"
        case finishTransactions = "finish_transactions"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        appAccountTokens = try container.decodeIfPresent(Bool.self, forKey: .appAccountTokens) ?? false
        finishTransactions = try container.decodeIfPresent(Bool.self, forKey: .finishTransactions) ?? false
    }
}
