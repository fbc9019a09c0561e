import SubLedgerStore

/// Why an erasure was refused, or a request naming an erased account.
public typealias ErasureError = AccountOperationError<ErasureOperation>

/// Erasing an account: `ErasureError`'s codes.
public enum ErasureOperation: AccountOperation {
    public static var codes: [ErasureError.Code] {
        [.appRequired, .unknownApp, .invalidAccountID, .accountNotFound, .accountErased, .secretKeyRequired]
    }
}

extension AccountOperationError.Code where Operation == ErasureOperation {
    /// No row of the app names the account.
    public static var accountNotFound: Self { Self(rawValue: "account_not_found") }
    /// The account was erased: erasing it again, reading its entitlements, any write naming it (a submission, an
    /// order, a consent or usage report, a claim, a grant or its revocation, a merge into it or from it).
    public static var accountErased: Self { Self(rawValue: "account_erased") }
    /// No secret key is configured: the key erased ids are digested with cannot be sealed (or opened).
    public static var secretKeyRequired: Self { Self(rawValue: "erasure_needs_secret_key") }
}

extension AccountOperationError where Operation == ErasureOperation {
    /// The store's refusal, as answered.
    public init(_ conflict: AccountErasureConflict) {
        switch conflict {
        case .erased: self.init(.accountErased, "the account was erased")
        case .unknown: self.init(.accountNotFound, "the app has no such account")
        case .secretKeyRequired:
            self.init(
                .secretKeyRequired,
                "erasure needs a secret key (SUBLEDGER_SECRET_KEY_FILE or SUBLEDGER_SECRET_KEY): erased ids are "
                    + "known by a digest under a key sealed with it (docs/guides/accounts.md, \"Erasing an account\")")
        }
    }
}
