/// Why a merge or a listing of aliases was refused.
public typealias MergeError = AccountOperationError<MergeOperation>

/// Merging one account into another: `MergeError`'s codes.
public enum MergeOperation: AccountOperation {
    public static var codes: [MergeError.Code] {
        [.appRequired, .unknownApp, .invalidAccountID, .missingFrom, .mergeIntoSelf, .accountMerged]
    }
}

extension AccountOperationError.Code where Operation == MergeOperation {
    /// The body names no `from`.
    public static var missingFrom: Self { Self(rawValue: "missing_merge_source") }
    /// `from` is the account merged into.
    public static var mergeIntoSelf: Self { Self(rawValue: "merge_into_self") }
    /// The account to merge into was merged into another one itself (merge into that one), or `from` was merged
    /// into another account before (which would make the aliases a cycle or a fork).
    public static var accountMerged: Self { Self(rawValue: "account_merged") }
}
