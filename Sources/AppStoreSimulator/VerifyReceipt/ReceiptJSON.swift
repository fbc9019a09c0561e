import AppStore
import SubLedgerCore

/// Renders receipts, transactions and renewal state in Apple's legacy JSON spelling: numbers and booleans
/// as strings, every date three times (`_ms`, GMT, Pacific).
enum ReceiptJSON {
    static func dates(_ out: inout String, _ name: String, _ instant: Instant) {
        JSONText.field(&out, name, AppleDateFormat.gmt(instant))
        JSONText.field(&out, name + "_ms", String(instant.millisecondsSince1970))
        JSONText.field(&out, name + "_pst", AppleDateFormat.pacific(instant))
    }

    /// One `in_app` / `latest_receipt_info` entry (iOS 7+ shape).
    static func transaction(_ record: TransactionRecord) -> String {
        var out = "{"
        JSONText.field(&out, "quantity", String(record.quantity), first: true)
        JSONText.field(&out, "product_id", record.productID)
        JSONText.field(&out, "transaction_id", record.transactionID)
        JSONText.field(&out, "original_transaction_id", record.originalTransactionID)
        dates(&out, "purchase_date", record.purchaseDate)
        dates(&out, "original_purchase_date", record.originalPurchaseDate)
        if let expires = record.expiresDate { dates(&out, "expires_date", expires) }
        if let webOrder = record.webOrderLineItemID { JSONText.field(&out, "web_order_line_item_id", webOrder) }
        JSONText.field(&out, "is_trial_period", record.isFreeTrial ? "true" : "false")
        if record.productType == .autoRenewable {
            JSONText.field(&out, "is_in_intro_offer_period", record.isFreeTrial ? "true" : "false")
        }
        if record.isUpgraded { JSONText.field(&out, "is_upgraded", "true") }
        if let cancellation = record.revocationDate {
            dates(&out, "cancellation_date", cancellation)
            // An upgrade's end is dated, but it is no refund: no reason.
            if record.isRefunded {
                JSONText.field(&out, "cancellation_reason", String(record.revocationReason ?? 0))
            }
        }
        if let group = record.subscriptionGroupID { JSONText.field(&out, "subscription_group_identifier", group) }
        JSONText.field(&out, "in_app_ownership_type", record.ownership.rawValue)
        if let token = record.visibleAppAccountToken { JSONText.field(&out, "app_account_token", token) }
        return out + "}"
    }

    /// One `pending_renewal_info` entry.
    static func pendingRenewal(_ chain: SubscriptionChainRecord) -> String {
        var out = "{"
        JSONText.field(&out, "auto_renew_product_id", chain.autoRenewProductID, first: true)
        JSONText.field(&out, "product_id", chain.productID)
        JSONText.field(&out, "original_transaction_id", chain.originalTransactionID)
        JSONText.field(&out, "auto_renew_status", chain.autoRenewEnabled ? "1" : "0")
        if let intent = chain.expirationIntent,
            chain.status == .expired || chain.status == .revoked
                || !chain.autoRenewEnabled || chain.status == .billingRetry || chain.status == .billingGracePeriod
        {
            JSONText.field(&out, "expiration_intent", String(intent.rawValue))
        }
        switch chain.status {
        case .billingRetry:
            JSONText.field(&out, "is_in_billing_retry_period", "1")
        case .billingGracePeriod:
            JSONText.field(&out, "is_in_billing_retry_period", "1")
            if let grace = chain.gracePeriodExpiresDate { dates(&out, "grace_period_expires_date", grace) }
        case .expired where chain.expirationIntent == .billingError:
            JSONText.field(&out, "is_in_billing_retry_period", "0")
        default:
            break
        }
        return out + "}"
    }

    /// The `receipt` object's fields other than request dates and `in_app`, without braces.
    static func receiptHead(_ issued: IssuedReceipt, app: AppDescription) -> String {
        var out = ""
        JSONText.field(
            &out, "receipt_type", issued.environment == .production ? "Production" : "ProductionSandbox", first: true)
        JSONText.rawField(&out, "adam_id", String(issued.environment == .production ? app.appAppleID : 0))
        JSONText.rawField(&out, "app_item_id", String(issued.environment == .production ? app.appAppleID : 0))
        JSONText.field(&out, "bundle_id", app.bundleID)
        JSONText.field(&out, "application_version", app.applicationVersion)
        JSONText.rawField(&out, "download_id", "0")
        JSONText.rawField(&out, "version_external_identifier", "0")
        dates(&out, "receipt_creation_date", issued.creationDate)
        dates(&out, "original_purchase_date", issued.purchases.first?.originalPurchaseDate ?? issued.creationDate)
        JSONText.field(
            &out, "original_application_version", issued.environment == .production ? app.applicationVersion : "1.0")
        return out
    }

    /// `[entry, ...]`.
    static func array(_ records: [TransactionRecord]) -> String {
        "[" + records.map(transaction).joined(separator: ",") + "]"
    }

    /// A pre-iOS 7 transaction object (`receipt`, `latest_receipt_info`, `latest_expired_receipt_info`).
    static func legacyTransaction(_ record: TransactionRecord, app: AppDescription, itemID: String) -> String {
        var out = "{"
        JSONText.field(
            &out, "original_purchase_date_pst", AppleDateFormat.pacific(record.originalPurchaseDate), first: true)
        JSONText.field(&out, "purchase_date_ms", String(record.purchaseDate.millisecondsSince1970))
        JSONText.field(&out, "original_transaction_id", record.originalTransactionID)
        JSONText.field(&out, "bvrs", app.applicationVersion)
        JSONText.field(&out, "app_item_id", String(app.appAppleID))
        JSONText.field(&out, "transaction_id", record.transactionID)
        JSONText.field(&out, "quantity", String(record.quantity))
        JSONText.field(&out, "product_id", record.productID)
        JSONText.field(&out, "item_id", itemID)
        JSONText.field(&out, "bid", record.bundleID)
        JSONText.field(&out, "original_purchase_date_ms", String(record.originalPurchaseDate.millisecondsSince1970))
        JSONText.field(&out, "purchase_date", AppleDateFormat.gmt(record.purchaseDate))
        JSONText.field(&out, "purchase_date_pst", AppleDateFormat.pacific(record.purchaseDate))
        JSONText.field(&out, "original_purchase_date", AppleDateFormat.gmt(record.originalPurchaseDate))
        if let expires = record.expiresDate {
            JSONText.field(&out, "expires_date", String(expires.millisecondsSince1970))
            JSONText.field(&out, "expires_date_formatted", AppleDateFormat.gmt(expires))
            JSONText.field(&out, "expires_date_formatted_pst", AppleDateFormat.pacific(expires))
        }
        if let webOrder = record.webOrderLineItemID { JSONText.field(&out, "web_order_line_item_id", webOrder) }
        JSONText.field(&out, "is_trial_period", record.isFreeTrial ? "true" : "false")
        if let cancellation = record.revocationDate {
            JSONText.field(&out, "cancellation_date_ms", String(cancellation.millisecondsSince1970))
            JSONText.field(&out, "cancellation_reason", String(record.revocationReason ?? 0))
        }
        return out + "}"
    }
}
