import Foundation
import SubLedgerCore
import SubLedgerStore

/// Granting entitlements by hand, revoking and listing grants (docs/guides/accounts.md, "Granted entitlements"): the
/// same rules for the HTTP routes and the CLI. "Now" is the injected clock's.
public struct EntitlementGrants: Sendable {
    let store: EntitlementGrantStore
    let catalog: CatalogStore
    let now: @Sendable () -> Instant

    public init(store: EntitlementGrantStore, catalog: CatalogStore, now: @Sendable @escaping () -> Instant) {
        self.store = store
        self.catalog = catalog
        self.now = now
    }

    /// A request to grant, its fields as they arrived.
    public struct Request: Sendable {
        public var bundleID: String?
        public var account: String
        public var entitlementID: String?
        /// An RFC 3339 time after now.
        public var until: String?
        /// `<n>h`, `<n>d` or `<n>w`, positive and at most 100 years.
        public var duration: String?
        public var reason: String?
        /// `Production` (the default) or `Sandbox`.
        public var environment: String?
        public var idempotencyKey: String?

        public init(
            bundleID: String?, account: String, entitlementID: String?, until: String?, duration: String?,
            reason: String?, environment: String? = nil, idempotencyKey: String? = nil
        ) {
            self.bundleID = bundleID
            self.account = account
            self.entitlementID = entitlementID
            self.until = until
            self.duration = duration
            self.reason = reason
            self.environment = environment
            self.idempotencyKey = idempotencyKey
        }
    }

    /// Grants as `request` says, by `actor`; with an idempotency key used before for the account, the grant made
    /// then (`created` false).
    public func grant(_ request: Request, by actor: String) async throws -> (
        record: EntitlementGrantRecord, created: Bool
    ) {
        let app = try await app(request.bundleID)
        let account = try Self.account(request.account)
        let instant = now()
        guard let entitlementID = request.entitlementID,
            EntitlementGrant.product(for: entitlementID, in: app.definition) != nil
        else {
            throw GrantError(.unknownEntitlement, "no product of \(app.definition.bundleID) carries that entitlement")
        }
        let environment = try Self.environment(request.environment, app: app.definition)
        let endsAt = try Self.end(until: request.until, duration: request.duration, now: instant)
        let reason = try Self.reason(request.reason)
        let key = try request.idempotencyKey.map(Self.idempotencyKey)
        let grant = EntitlementGrant(
            grantID: UUID().uuidString.lowercased(), account: account, entitlementID: entitlementID,
            environment: environment, startsAt: instant, endsAt: endsAt)
        let result = try await store.create(
            grant, app: app, reason: reason, grantedBy: actor, idempotencyKey: key, now: instant)
        if !result.created,
            result.record.grant.entitlementID != entitlementID || result.record.grant.environment != environment
        {
            throw GrantError(.idempotencyKeyReused, "that Idempotency-Key was used for another grant of the account")
        }
        return result
    }

    /// Revokes a grant now, by `actor`. Revoking a revoked grant changes nothing and returns it as it is.
    public func revoke(bundleID: String?, account: String, grantID: String, by actor: String) async throws
        -> EntitlementGrantRecord
    {
        let app = try await app(bundleID)
        let account = try Self.account(account)
        guard let uuid = UUID(uuidString: grantID) else {
            throw GrantError(.invalidGrantID, "a grant id is a UUID")
        }
        guard
            let record = try await store.revoke(
                grantID: uuid.uuidString.lowercased(), of: account, app: app, revokedBy: actor, now: now())
        else { throw GrantError(.grantNotFound, "the account has no grant with that id in this app") }
        return record
    }

    /// The account's grants in the app, revoked and ended ones included, oldest first.
    public func grants(bundleID: String?, account: String) async throws -> [EntitlementGrantRecord] {
        let app = try await app(bundleID)
        return try await store.grants(of: try Self.account(account), app: app)
    }

    private func app(_ bundleID: String?) async throws -> StoredApp {
        guard let bundleID, !bundleID.isEmpty else {
            throw GrantError(.appRequired, "name the app: bundle_id")
        }
        guard IdentifierRule.bundleID.accepts(bundleID), let app = try await catalog.app(bundleID: bundleID) else {
            throw GrantError(.unknownApp, "no app has that bundle id")
        }
        return app
    }

    static func account(_ raw: String) throws -> AccountID {
        do {
            return try AccountID(raw)
        } catch {
            throw GrantError(.invalidAccountID, "\(error)")
        }
    }

    static func environment(_ raw: String?, app: App) throws -> StoreEnvironment {
        let environment: StoreEnvironment
        switch raw ?? "Production" {
        case "Production", "production": environment = .production
        case "Sandbox", "sandbox": environment = .sandbox
        default: throw GrantError(.invalidGrantEnvironment, "environment is Production or Sandbox")
        }
        guard app.environments.contains(environment) else {
            throw GrantError(.invalidGrantEnvironment, "the app does not allow \(environment.rawValue)")
        }
        return environment
    }

    /// The grant's end: `until`, or `duration` after `now`; exactly one of them, ending after `now` and at most
    /// 100 years after it.
    static func end(until: String?, duration: String?, now: Instant) throws -> Instant {
        switch (until, duration) {
        case (let until?, nil):
            guard let end = Instant(acceptedRFC3339: until) else {
                throw GrantError(.grantEndsInPast, "until is an RFC 3339 time after now")
            }
            guard end > now else { throw GrantError(.grantEndsInPast, "until must be after now") }
            guard end.millisecondsSince1970 - now.millisecondsSince1970 <= EntitlementGrant.maximumDurationMilliseconds
            else { throw GrantError(.invalidGrantDuration, "a grant lasts at most 100 years") }
            return end
        case (nil, let duration?):
            return now.adding(milliseconds: try milliseconds(of: duration))
        default:
            throw GrantError(.invalidGrantDuration, "give exactly one of until and duration")
        }
    }

    /// `<n>h`, `<n>d` or `<n>w` in milliseconds: positive, at most 100 years.
    static func milliseconds(of duration: String) throws -> Int64 {
        let units: [Character: Int64] = ["h": 3_600_000, "d": 86_400_000, "w": 7 * 86_400_000]
        guard let unit = duration.last.flatMap({ units[$0] }), duration.count <= 8,
            let count = Int64(duration.dropLast()), duration.first?.isNumber == true, count > 0,
            count <= EntitlementGrant.maximumDurationMilliseconds / unit
        else {
            throw GrantError(
                .invalidGrantDuration,
                "duration is a positive number of hours, days or weeks (12h, 30d, 52w), at most 100 years")
        }
        return count * unit
    }

    static func reason(_ raw: String?) throws -> String {
        guard let reason = raw?.trimmingCharacters(in: .whitespaces), !reason.isEmpty,
            reason.count <= EntitlementGrant.maximumReasonLength,
            !reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw GrantError(
                .invalidGrantReason,
                "reason is required: 1 to \(EntitlementGrant.maximumReasonLength) characters, no control characters")
        }
        return reason
    }

    static func idempotencyKey(_ raw: String) throws -> String {
        guard !raw.isEmpty, raw.count <= 200,
            !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw GrantError(.invalidIdempotencyKey, "Idempotency-Key is 1 to 200 characters, no control characters")
        }
        return raw
    }
}

extension EntitlementGrants {
    /// A grant as `grant`, `revoke` and `grants` answer it.
    public typealias Record = EntitlementGrantRecord
}
