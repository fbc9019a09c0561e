/// Why a grant, a revocation or a listing of grants was refused.
public typealias GrantError = AccountOperationError<GrantOperation>

/// Granting entitlements by hand: `GrantError`'s codes.
public enum GrantOperation: AccountOperation {
    public static var codes: [GrantError.Code] {
        [
            .appRequired, .unknownApp, .invalidAccountID, .unknownEntitlement, .invalidGrantDuration,
            .grantEndsInPast, .invalidGrantReason, .invalidGrantEnvironment, .invalidIdempotencyKey,
            .idempotencyKeyReused, .invalidGrantID, .grantNotFound,
        ]
    }
}

extension AccountOperationError.Code where Operation == GrantOperation {
    /// No product of the app's catalog carries the entitlement (or none was named).
    public static var unknownEntitlement: Self { Self(rawValue: "unknown_entitlement") }
    /// Neither or both of `until` and `duration`, a `duration` that is not like `30d`, or one out of range
    /// (positive, at most 100 years).
    public static var invalidGrantDuration: Self { Self(rawValue: "invalid_grant_duration") }
    /// `until` is not an RFC 3339 time, or is not after now.
    public static var grantEndsInPast: Self { Self(rawValue: "grant_ends_in_past") }
    /// The reason is missing, longer than 500 characters, or holds control characters.
    public static var invalidGrantReason: Self { Self(rawValue: "invalid_grant_reason") }
    /// The environment is not `Production` or `Sandbox`, or the app does not allow it.
    public static var invalidGrantEnvironment: Self { Self(rawValue: "invalid_grant_environment") }
    /// The `Idempotency-Key` is empty, longer than 200 characters, or holds control characters.
    public static var invalidIdempotencyKey: Self { Self(rawValue: "invalid_idempotency_key") }
    /// The `Idempotency-Key` was used for another grant of the account (another entitlement or environment).
    public static var idempotencyKeyReused: Self { Self(rawValue: "idempotency_key_reused") }
    /// The grant id is not a UUID.
    public static var invalidGrantID: Self { Self(rawValue: "invalid_grant_id") }
    /// The account has no grant with that id in the app.
    public static var grantNotFound: Self { Self(rawValue: "grant_not_found") }
}
