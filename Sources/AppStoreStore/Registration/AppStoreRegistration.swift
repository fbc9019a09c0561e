import AsyncHTTPClient
import Logging
import Metrics
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// The App Store as the rest of the server knows it: the one thing this module exports to the composition root. Its
/// port (receipts, StoreKit 2 transactions and Server Notifications, chains read back from the App Store Server API
/// or verifyReceipt), its reconciliation (missed-notification recovery from the notification history), its
/// obligations (Set App Account Token, Finish Transaction, consumption answers, External Purchase reports), its push
/// route (`POST /v1/notifications/appstore`, signed in its body, with no consistency token), offer signatures, app
/// transaction claims, support's lookups with Apple and the import of transaction ids and receipts, all over one
/// `AppleGateway` built with the process's App Store configuration.
public struct AppStoreRegistration: StoreRegistration {
    /// The way to Apple (verifyReceipt, the Server API, the signatures' verifiers, the circuit breaker), shared by
    /// everything this registration builds.
    public let gateway: AppleGateway
    /// The notification history recovery `poll` runs; `nil` leaves it out (`--recovery-interval 0`).
    public var recovery: NotificationRecovery.Configuration?

    public init(gateway: AppleGateway, recovery: NotificationRecovery.Configuration? = nil) {
        self.gateway = gateway
        self.recovery = recovery
    }

    /// Apple (or appstore-sim) where `configuration` says. Throws `ConfigurationError` when a trusted root cannot be
    /// read.
    public init(
        configuration: AppleConfiguration, recovery: NotificationRecovery.Configuration? = nil, logger: Logger
    ) throws {
        self.init(gateway: try AppleGateway(configuration: configuration, logger: logger), recovery: recovery)
    }

    public var store: Store { .appStore }

    public var pushRoute: StorePushRoute? {
        StorePushRoute(path: "/v1/notifications/appstore", credentialHeader: nil)
    }

    /// The App Store's ingestion through `context`: the ledger with the retry policy of Apple's configuration.
    public func ingestion(_ context: StoreContext) -> Ingestion {
        Ingestion(
            store: context.store, apple: gateway, logger: context.logger, now: context.now, findApp: context.findApp)
    }

    public func port(_ context: StoreContext) -> any StorePort {
        AppStorePort(ingestion: ingestion(context))
    }

    /// The notification history's recovery, named after `worker`, when configured.
    public func reconciliation(port: any StorePort, pool: PostgresPool, context: StoreContext, worker: String)
        -> (any StoreReconciliation)?
    {
        guard var recovery, let port = port as? AppStorePort else { return nil }
        recovery.worker = worker
        return NotificationRecovery(
            configuration: recovery, cursors: NotificationHistoryCursors(pool: pool), catalog: context.catalog,
            ingestion: port.ingestion, logger: context.logger, now: context.now)
    }

    /// Set App Account Token and Finish Transaction, consumption answers and External Purchase reports.
    public func obligationSender(pool: PostgresPool, retry: ObligationRetryPolicy, logger: Logger)
        -> (any ObligationSending)?
    {
        AppStoreObligationSender(
            apple: gateway, tokens: AccountTokenStore(pool: pool),
            consumption: ConsumptionAnswerSender(
                store: ConsumptionStore(pool: pool), apple: gateway, retry: retry, logger: logger),
            externalPurchases: ExternalPurchaseReportSender(store: ExternalPurchaseStore(pool: pool), apple: gateway))
    }

    public func rowImport(_ context: StoreContext) -> (any StoreRowImport)? {
        AppStoreRowImport(ingestion: ingestion(context), logger: context.logger)
    }

    public func purchaseLookup(_ context: StoreContext) -> (any StorePurchaseLookup)? {
        AppStorePurchaseLookup(ingestion: ingestion(context))
    }

    public func offerSigning(pool: PostgresPool, now: @escaping @Sendable () -> Instant) -> (any OfferSigning)? {
        OfferSignatures(store: OfferEligibilityStore(pool: pool), now: now)
    }

    public func appTransactionClaims(pool: PostgresPool, now: @escaping @Sendable () -> Instant)
        -> (any AppTransactionClaiming)?
    {
        AppTransactionClaims(store: AppTransactionStore(pool: pool), apple: gateway, now: now)
    }

    /// When Apple answers again after failing, the receipts deferred for it are made due at once, for the renewal
    /// job.
    public func prepareToServe(_ context: StoreContext) {
        let ledger = ingestion(context).store
        let (logger, now) = (context.logger, context.now)
        gateway.breaker.onRecovery {
            Task {
                do {
                    let woken = try await ledger.makeAppleDeferredInputsDue(now: now())
                    if woken > 0 {
                        logger.notice(
                            "Apple answers again; deferred receipts are due", metadata: ["receipts": "\(woken)"])
                    }
                } catch {
                    logger.warning("deferred receipts could not be made due", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// Calls to Apple by endpoint and outcome, the breaker's refusals and the consumption answers; with `poll`, the
    /// notification recovery's runs and notifications.
    public func declareMetrics(poll: Bool) {
        AppStoreMetricDeclarations.declare(poll: poll)
    }
}

/// The App Store's metrics a fresh process exports at 0 (`MetricDeclarations` makes the rest).
enum AppStoreMetricDeclarations {
    static func declare(poll: Bool) {
        let outcomes: [AppleCallMetrics.Outcome] = [
            .success, .rejected, .configurationError, .retryable, .upstreamFailure,
        ]
        for endpoint in appleEndpoints {
            for outcome in outcomes {
                _ = Counter(
                    label: "subledger_apple_calls_total",
                    dimensions: [("endpoint", endpoint.name), ("outcome", outcome.name)])
            }
            // The latency of calls that succeeded: the rest fail fast or at their timeout.
            _ = Timer(
                label: "subledger_apple_call_duration_seconds",
                dimensions: [("endpoint", endpoint.name), ("outcome", AppleCallMetrics.Outcome.success.name)])
        }
        _ = Counter(label: "subledger_apple_circuit_refusals_total")
        for outcome in ConsumptionAttemptRecord.Outcome.allCases {
            _ = Counter(label: "subledger_consumption_answers_total", dimensions: [("outcome", outcome.rawValue)])
        }
        guard poll else { return }
        for result in RecoveryReport.Result.allCases {
            _ = Counter(label: "subledger_recovery_runs_total", dimensions: [("result", result.rawValue)])
        }
        for result in RecoveryMetrics.notificationResults {
            _ = Counter(label: "subledger_recovery_notifications_total", dimensions: [("result", result)])
        }
    }

    /// Every endpoint `AppleCallMetrics` names.
    static let appleEndpoints: [AppleCallMetrics.Endpoint] = [
        .verifyReceipt, .transactionHistory, .subscriptionStatuses, .transactionInfo, .notificationHistory,
        .consumptionInformation, .extendRenewalDate, .massExtendRenewalDate, .massExtensionStatus,
        .requestTestNotification, .testNotificationStatus, .setAppAccountToken, .finishTransaction,
        .sendExternalPurchaseReport, .retrieveExternalPurchaseReport, AppStorePurchaseLookup.orderLookupEndpoint,
    ]
}
