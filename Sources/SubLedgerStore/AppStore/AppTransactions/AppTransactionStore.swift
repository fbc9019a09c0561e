import PostgresLibPQ
import SubLedgerCore

/// One accepted claim of an app purchase (schema step 29, `app_transaction_claims`): the account that claimed
/// Apple's app transaction, with what the signed `AppTransaction` said.
public struct AppTransactionClaim: Sendable, Hashable {
    public var environment: StoreEnvironment
    public var appTransactionID: String
    /// The claims of one app transaction, counted from 0: the highest is its owner's.
    public var sequence: Int
    public var account: AccountID
    public var claimedAt: Instant
    public var originalPurchaseDate: Instant?
    public var preorderDate: Instant?
    public var originalApplicationVersion: String?
    public var signedDate: Instant?

    public init(
        environment: StoreEnvironment, appTransactionID: String, sequence: Int, account: AccountID,
        claimedAt: Instant, originalPurchaseDate: Instant? = nil, preorderDate: Instant? = nil,
        originalApplicationVersion: String? = nil, signedDate: Instant? = nil
    ) {
        self.environment = environment
        self.appTransactionID = appTransactionID
        self.sequence = sequence
        self.account = account
        self.claimedAt = claimedAt
        self.originalPurchaseDate = originalPurchaseDate
        self.preorderDate = preorderDate
        self.originalApplicationVersion = originalApplicationVersion
        self.signedDate = signedDate
    }
}

/// What claiming an app transaction did.
public enum AppTransactionClaimOutcome: Sendable, Hashable {
    /// The account now owns it; `previous` owned it before (`nil`: nobody had claimed it).
    case claimed(AppTransactionClaim, previous: AccountID?)
    /// The account already owned it: nothing was written.
    case alreadyOwned(AppTransactionClaim)

    /// The claim in force after the call.
    public var claim: AppTransactionClaim {
        switch self {
        case .claimed(let claim, _), .alreadyOwned(let claim): claim
        }
    }
}

/// The claims of app purchases (`app_transaction_claims`, append-only): which account owns Apple's app
/// transaction of an app (a paid app, a pre-order), from StoreKit 2's `AppTransaction`.
public struct AppTransactionStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Records that `claim.account` owns the app transaction (verified by the caller; `signed` is the JWS as
    /// received), unless it already does. Claims of one app transaction are serialized; the sequence and
    /// `claimedAt` of `claim` are the store's (the next sequence, `now`).
    public func claim(
        _ claim: AppTransactionClaim, signed: String, app: StoredApp, now: Instant
    ) async throws -> AppTransactionClaimOutcome {
        try await pool.transaction { connection in
            try connection.query(
                """
                SELECT pg_advisory_xact_lock(hashtextextended('app-transaction:' || \(app.appID)::text || ':' ||
                    \(claim.environment.rawValue) || ':' || \(claim.appTransactionID), 0))
                """)
            let latest = try connection.query(
                """
                \(Self.claims(appID: app.appID, environments: claim.environment.rawValue))
                AND c.app_transaction_id = \(claim.appTransactionID) ORDER BY c.sequence DESC LIMIT 1
                """
            ).map(Self.claim(from:)).first
            if let latest, latest.account == claim.account { return .alreadyOwned(latest) }
            try AccountRows.ensure([claim.account], app: app, on: connection)
            var written = claim
            written.sequence = (latest?.sequence ?? -1) + 1
            written.claimedAt = now
            try connection.query(
                """
                INSERT INTO app_transaction_claims (app_id, environment, app_transaction_id, sequence, account_id,
                    claimed_at, original_purchase_date, preorder_date, original_application_version, signed_date,
                    signed_app_transaction)
                VALUES (\(app.appID), \(written.environment.rawValue), \(written.appTransactionID),
                    \(written.sequence), \(written.account.rawValue), \(timestamp(written.claimedAt)),
                    \(timestamp(written.originalPurchaseDate)), \(timestamp(written.preorderDate)),
                    \(written.originalApplicationVersion), \(timestamp(written.signedDate)), \(signed))
                """)
            return .claimed(written, previous: latest?.account)
        }
    }

    /// Every claim of the app transaction `id` of `app`, in any environment, oldest first (the last is the
    /// owner's).
    public func claims(appTransactionID id: String, app: StoredApp) async throws
        -> [AppTransactionClaim]
    {
        try await pool.withConnection { connection in
            try connection.query(
                """
                \(Self.claims(appID: app.appID, environments: StoreEnvironment.allAsParameter))
                AND c.app_transaction_id = \(id) ORDER BY c.environment, c.sequence
                """
            ).map(Self.claim(from:))
        }
    }

    /// The claim columns of `app_transaction_claims c` of app `appID` in `environments` (one, or the
    /// comma-separated list), for `claim(from:)`.
    static func claims(appID: Int64, environments: String) -> PostgresQuery {
        """
        SELECT c.environment, c.app_transaction_id, c.sequence, c.account_id,
            (extract(epoch FROM c.claimed_at) * 1000)::bigint, (extract(epoch FROM c.original_purchase_date) * 1000)::bigint,
            (extract(epoch FROM c.preorder_date) * 1000)::bigint, c.original_application_version,
            (extract(epoch FROM c.signed_date) * 1000)::bigint
        FROM app_transaction_claims c
        WHERE c.app_id = \(appID) AND c.environment = ANY (string_to_array(\(environments)::text, ','))
        """
    }

    static func claim(from row: PostgresRow) throws -> AppTransactionClaim {
        let rawEnvironment = try row.decode(String.self, at: 0)
        guard let environment = StoreEnvironment(rawValue: rawEnvironment) else {
            throw StoreError(code: .corruptRow, message: "unknown environment '\(rawEnvironment)' in a claim row")
        }
        func instant(_ column: Int) throws -> Instant? {
            try row.decode(Int64?.self, at: column).map(Instant.init(millisecondsSince1970:))
        }
        return AppTransactionClaim(
            environment: environment, appTransactionID: try row.decode(String.self, at: 1),
            sequence: Int(try row.decode(Int32.self, at: 2)),
            account: try AccountID(try row.decode(String.self, at: 3)),
            claimedAt: try instant(4) ?? Instant(millisecondsSince1970: 0), originalPurchaseDate: try instant(5),
            preorderDate: try instant(6), originalApplicationVersion: try row.decode(String?.self, at: 7),
            signedDate: try instant(8))
    }
}
