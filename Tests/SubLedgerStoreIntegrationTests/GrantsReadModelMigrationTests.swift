import CatalogFile
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// Step 53 puts every grant that gives access for some time into the entitlement read model
/// (`account_entitlement_periods`), where entitlement reads find it without a statement on `entitlement_grants`; the
/// grants recorded before it are read exactly as they were, and those created, revoked and moved after it keep their
/// rows in step.
@Suite struct GrantsReadModelMigrationTests {
    static let catalogYAML = """
        apps:
          - bundle_id: com.example.grantsmodel
            apple_app_id: 1999999998
            environments: [production, sandbox]
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 2, entitlements: [pro] }
              - { product_id: premium.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 1, entitlements: [pro, premium] }
        """

    /// 2026-01-01T00:00:00Z and the days after it.
    static func day(_ number: Int64) -> Instant {
        Instant(millisecondsSince1970: 1_767_225_600_000 + number * 86_400_000)
    }

    @Test func grantsRecordedBeforeTheStepAreReadFromTheReadModelAsBefore() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            // On Citus (scripts/citus-test), the upgrade of a cluster distributed at step 52.
            let bundled = try await Migrator.bundled(before: 53, on: pool)
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, secrets) = try CatalogFile.read(Self.catalogYAML)
            try await catalogStore.applyCatalog(catalog, secrets: secrets)
            // The app as stored at step 52, read without today's reads (the store secrets' table is step 57's).
            let appID = try await pool.query("SELECT app_id FROM apps WHERE bundle_id = 'com.example.grantsmodel'")
                .single().decode(Int64.self, at: 0)
            let app = StoredApp(
                appID: appID,
                definition: try #require(catalog.apps.first { $0.bundleID == "com.example.grantsmodel" }),
                sharedSecret: nil)
            // ann: one grant through day 30, one of premium revoked on day 10; bob: one revoked the moment it began
            // and one that ended on day 5.
            try await pool.execute(
                script: """
                    INSERT INTO entitlement_grants (app_id, account_id, grant_id, environment, entitlement_id, starts_at,
                        ends_at, reason, granted_by, revoked_at, revoked_by)
                    VALUES
                        (\(app.appID), 'ann', '00000000-0000-4000-8000-000000000001', 'Production', 'pro',
                         '2026-01-01T00:00:00Z', '2026-01-31T00:00:00Z', 'support', 'ops', NULL, NULL),
                        (\(app.appID), 'ann', '00000000-0000-4000-8000-000000000002', 'Production', 'premium',
                         '2026-01-01T00:00:00Z', '2026-03-01T00:00:00Z', 'support', 'ops', '2026-01-11T00:00:00Z', 'ops'),
                        (\(app.appID), 'bob', '00000000-0000-4000-8000-000000000003', 'Sandbox', 'pro',
                         '2026-01-04T00:00:00Z', '2026-02-01T00:00:00Z', 'support', 'ops', '2026-01-04T00:00:00Z', 'ops'),
                        (\(app.appID), 'bob', '00000000-0000-4000-8000-000000000004', 'Production', 'pro',
                         '2026-01-01T00:00:00Z', '2026-01-06T00:00:00Z', 'support', 'ops', NULL, NULL);
                    """)

            let report = try await bundled.migrate(pool)
            #expect(report.applied.first == 53)
            let rows = try await pool.query(
                """
                SELECT account_id || ' ' || environment || ' ' || original_transaction_id || ' ' || transaction_id || ' '
                    || entitlement_id || ' ' || state || ' ' || valid_from || ' ' || valid_until || ' ' || expires_at
                FROM account_entitlement_periods WHERE app_id = \(app.appID) ORDER BY account_id, transaction_id
                """
            ).map { try $0.decode(String.self, at: 0) }
            let start = Self.day(0).millisecondsSince1970
            #expect(
                rows == [
                    "ann Production grant:00000000-0000-4000-8000-000000000001 00000000-0000-4000-8000-000000000001 "
                        + "pro granted \(start) \(Self.day(30).millisecondsSince1970) \(Self.day(30).millisecondsSince1970)",
                    "ann Production grant:00000000-0000-4000-8000-000000000002 00000000-0000-4000-8000-000000000002 "
                        + "premium granted \(start) \(Self.day(10).millisecondsSince1970) "
                        + "\(Self.day(10).millisecondsSince1970)",
                    "bob Production grant:00000000-0000-4000-8000-000000000004 00000000-0000-4000-8000-000000000004 "
                        + "pro granted \(start) \(Self.day(5).millisecondsSince1970) \(Self.day(5).millisecondsSince1970)",
                ])

            let reads = EntitlementReadStore(pool: pool)
            func held(_ account: String, on day: Int64) async throws -> [String] {
                try await reads.read(of: try AccountID(account), app: app, at: Self.day(day)).entitlements.map {
                    "\($0.entitlementID) \($0.productID) \($0.grantID ?? "-") "
                        + "\($0.expiresAt.map { String($0.millisecondsSince1970) } ?? "-")"
                }
            }
            let grant1 = "00000000-0000-4000-8000-000000000001"
            let grant2 = "00000000-0000-4000-8000-000000000002"
            // The highest product carrying the entitlement names it (premium.monthly carries pro too).
            let annOn9 = try await held("ann", on: 9)
            #expect(
                annOn9 == [
                    "premium premium.monthly \(grant2) \(Self.day(10).millisecondsSince1970)",
                    "pro premium.monthly \(grant1) \(Self.day(30).millisecondsSince1970)",
                ])
            #expect(
                try await held("ann", on: 10) == ["pro premium.monthly \(grant1) \(Self.day(30).millisecondsSince1970)"]
            )
            #expect(try await held("ann", on: 30) == [])
            // bob's grant revoked as it began gives nothing; the other one ends on day 5.
            let bobOn4 = try await held("bob", on: 4)
            #expect(
                bobOn4 == [
                    "pro premium.monthly 00000000-0000-4000-8000-000000000004 \(Self.day(5).millisecondsSince1970)"
                ])
            #expect(try await held("bob", on: 5).isEmpty)
        }
    }

    @Test func aGrantsRowFollowsItsCreationRevocationAndMove() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, secrets) = try CatalogFile.read(Self.catalogYAML)
            try await catalogStore.applyCatalog(catalog, secrets: secrets)
            let app = try #require(try await catalogStore.app(bundleID: "com.example.grantsmodel"))
            let grants = EntitlementGrantStore(pool: pool)
            func rows() async throws -> [String] {
                try await pool.query(
                    """
                    SELECT account_id || ' ' || transaction_id || ' ' || valid_from || ' ' || valid_until
                    FROM account_entitlement_periods WHERE app_id = \(app.appID) ORDER BY account_id, transaction_id
                    """
                ).map { try $0.decode(String.self, at: 0) }
            }
            let later = EntitlementGrant(
                grantID: "00000000-0000-4000-8000-00000000000a", account: try AccountID("cid"),
                entitlementID: "pro", environment: .production, startsAt: Self.day(20), endsAt: Self.day(40))
            let now = EntitlementGrant(
                grantID: "00000000-0000-4000-8000-00000000000b", account: try AccountID("cid"),
                entitlementID: "pro", environment: .production, startsAt: Self.day(0), endsAt: Self.day(40))
            for grant in [later, now] {
                _ = try await grants.create(
                    grant, app: app, reason: "support", grantedBy: "ops", idempotencyKey: nil, now: Self.day(0))
            }
            let (d0, d20, d40) = (
                Self.day(0).millisecondsSince1970, Self.day(20).millisecondsSince1970,
                Self.day(40).millisecondsSince1970
            )
            #expect(try await rows() == ["cid \(later.grantID) \(d20) \(d40)", "cid \(now.grantID) \(d0) \(d40)"])

            // Revoked before it began: no row; revoked on day 3: access until then.
            _ = try await grants.revoke(
                grantID: later.grantID, of: later.account, app: app, revokedBy: "ops", now: Self.day(1))
            _ = try await grants.revoke(
                grantID: now.grantID, of: now.account, app: app, revokedBy: "ops", now: Self.day(3))
            #expect(try await rows() == ["cid \(now.grantID) \(d0) \(Self.day(3).millisecondsSince1970)"])

            // A merge moves the grants still giving access, with their rows, to the account merged into.
            let third = EntitlementGrant(
                grantID: "00000000-0000-4000-8000-00000000000c", account: try AccountID("cid"),
                entitlementID: "premium", environment: .sandbox, startsAt: Self.day(4), endsAt: Self.day(40))
            _ = try await grants.create(
                third, app: app, reason: "support", grantedBy: "ops", idempotencyKey: nil, now: Self.day(4))
            _ = try await AccountMergeStore(pool: pool).merge(
                try AccountID("cid"), into: try AccountID("dee"), app: app, actor: "ops",
                now: Self.day(5))
            #expect(
                try await rows() == [
                    "cid \(now.grantID) \(d0) \(Self.day(3).millisecondsSince1970)",
                    "dee \(third.grantID) \(Self.day(4).millisecondsSince1970) \(d40)",
                ])
            let held = try await EntitlementReadStore(pool: pool).read(
                of: try AccountID("dee"), app: app, at: Self.day(6)
            ).entitlements
            #expect(held.map(\.entitlementID) == ["premium"])
            #expect(held.allSatisfy { $0.grantID == third.grantID })
        }
    }
}
