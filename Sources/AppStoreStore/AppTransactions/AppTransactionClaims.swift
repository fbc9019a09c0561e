import AppStore
import Foundation
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// `POST /v1/app-transactions`: an account shows the app's StoreKit 2 `AppTransaction` (what
/// `AppTransaction.shared` gives the device), and SubLedger records that the account owns that purchase of the
/// app: a paid app, a pre-order, or a download, found again later by its `appTransactionId`
/// (`subledger support app-transaction`). Verified like any signed data (chain, signature, app, environment);
/// the owner is the latest account to claim it (the store's `app_transaction_claims`, append-only).
public struct AppTransactionClaims: AppTransactionClaiming {
    let store: AppTransactionStore
    let apple: AppleGateway
    let now: @Sendable () -> Instant

    public init(store: AppTransactionStore, apple: AppleGateway, now: @escaping @Sendable () -> Instant) {
        self.store = store
        self.apple = apple
        self.now = now
    }

    /// Verifies `token` for `app` and records that `account` owns it.
    public func claim(_ token: String, account: AccountID, app: StoredApp) async throws
        -> AppTransactionClaimOutcome
    {
        let environment = try Self.claimedEnvironment(token)
        let payload: AppTransaction
        do {
            payload = try await apple.verifier(for: app, environment: environment).verifyAppTransaction(token)
        } catch let error as AppleGatewayError {
            throw IngestionError(error)
        } catch {
            throw IngestionError(.invalidAppTransaction, "the signed app transaction did not verify: \(error)")
        }
        guard let id = payload.appTransactionID, IdentifierRule.transactionID.accepts(id) else {
            throw IngestionError(.invalidAppTransaction, "the app transaction has no appTransactionId")
        }
        func instant(_ milliseconds: Int64?) -> Instant? {
            // Outside 1970...9999 (Xcode's year 1 included): not a date, left out.
            milliseconds.flatMap { Instant(acceptedMillisecondsSince1970: $0) }
        }
        let claim = AppTransactionClaim(
            environment: environment, appTransactionID: id, sequence: 0, account: account, claimedAt: now(),
            originalPurchaseDate: instant(payload.originalPurchaseDate), preorderDate: instant(payload.preorderDate),
            originalApplicationVersion: payload.originalApplicationVersion.flatMap {
                $0.utf8.count <= 64 && !$0.contains("\u{0}") ? $0 : nil
            },
            signedDate: instant(payload.signedDate))
        return try await store.claim(claim, signed: token, app: app, now: now())
    }

    /// The environment the token's payload claims (`receiptType`), read before verification to pick the
    /// verifier, which then checks it.
    static func claimedEnvironment(_ token: String) throws(IngestionError) -> StoreEnvironment {
        struct Claims: Decodable { var receiptType: String? }
        guard let jws = try? CompactJWS(token),
            let claims = try? JSONDecoder().decode(Claims.self, from: jws.payload),
            let environment = claims.receiptType.flatMap(StoreEnvironment.init(appleSpelling:))
        else {
            throw IngestionError(
                .malformedJWS, "signed_app_transaction is not a JWS app transaction with a receiptType")
        }
        return environment
    }
}
