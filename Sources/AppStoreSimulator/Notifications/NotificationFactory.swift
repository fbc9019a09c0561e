import AppStore
import Foundation
import SubLedgerCore

extension SimulatorState {
    /// Turns pending events into notifications (signed V2 payload, and the V1 body for V1 apps);
    /// returns their UUIDs.
    mutating func makeNotifications(signer: PayloadSigner, now: Instant) throws(SimulatorError) -> [String] {
        let pending = events
        events = []
        var uuids: [String] = []
        for event in pending {
            let app = try app(event.key.bundleID)
            let account = accounts[event.key.appleID]
            let environment = event.environment ?? account?.environment ?? .sandbox
            let record = event.transactionID.flatMap { transactions[$0] }
            let chain = record.flatMap { $0.productType == .autoRenewable ? chains[$0.originalTransactionID] : nil }
            // A new state of the chain: signed strictly after its previous one.
            let signedAt =
                record.map { signingInstantForNewState(of: $0.originalTransactionID, now: now) } ?? now
            var signedTransaction: String?
            if let record {
                signedTransaction = try signer.sign(SignedPayloads.transaction(record, signedAt: signedAt))
            }
            var signedRenewal: String?
            if let chain {
                signedRenewal = try signedRenewalInfo(chain.originalTransactionID, signer: signer, now: signedAt)
            }
            let uuid = ids.uuid()
            // An EXTERNAL_PURCHASE_TOKEN carries the token in place of `data`.
            let token = event.externalPurchaseID.flatMap { externalPurchases.tokens[$0]?.token }
            let payload = ResponseBodyV2DecodedPayload(
                rawNotificationType: event.type,
                rawSubtype: event.subtype,
                notificationUUID: uuid,
                data: token != nil
                    ? nil
                    : NotificationData(
                        rawEnvironment: environment.rawValue,
                        appAppleID: app.description.appAppleID,
                        bundleID: app.bundleID,
                        bundleVersion: app.description.applicationVersion,
                        signedTransactionInfo: signedTransaction,
                        signedRenewalInfo: signedRenewal,
                        rawStatus: chain?.status.rawValue,
                        rawConsumptionRequestReason: event.consumptionRequestReason
                    ),
                version: "2.0",
                signedDate: signedAt.millisecondsSince1970,
                externalPurchaseToken: token
            )
            let signedPayload = try signer.sign(payload)
            let body: Data?
            if app.description.notificationVersion == "V1" {
                body = try v1Body(event, app: app, environment: environment, chain: chain, signer: signer, now: now)
            } else {
                body = Data(("{\"signedPayload\":" + JSONText.quoted(signedPayload) + "}").utf8)
            }
            let url = app.description.notificationURL ?? notifications.settings.defaultURL
            notifications.append(
                NotificationRecord(
                    uuid: uuid, bundleID: app.bundleID, appleID: account?.appleID, environment: environment,
                    type: event.type, subtype: event.subtype, transactionID: record?.transactionID,
                    originalTransactionID: record?.originalTransactionID, createdAt: now,
                    signedPayload: signedPayload, body: body, url: url,
                    nextAttemptAt: url != nil && body != nil ? now : nil, dispatchOrder: 0))
            uuids.append(uuid)
        }
        return uuids
    }

    /// Apple's V1 `notification_type` for a V2 event, when V1 had one.
    static func v1Type(_ event: SimulatorEvent) -> String? {
        switch (event.type, event.subtype) {
        case ("SUBSCRIBED", "INITIAL_BUY"): "INITIAL_BUY"
        case ("SUBSCRIBED", _): "INTERACTIVE_RENEWAL"
        case ("DID_RENEW", "BILLING_RECOVERY"): "DID_RECOVER"
        case ("DID_RENEW", _): "DID_RENEW"
        case ("DID_CHANGE_RENEWAL_STATUS", _): "DID_CHANGE_RENEWAL_STATUS"
        case ("DID_CHANGE_RENEWAL_PREF", "UPGRADE"): "INTERACTIVE_RENEWAL"
        case ("DID_CHANGE_RENEWAL_PREF", _): "DID_CHANGE_RENEWAL_PREF"
        case ("DID_FAIL_TO_RENEW", _): "DID_FAIL_TO_RENEW"
        case ("REFUND", _): "REFUND"
        case ("REVOKE", _): "REVOKE"
        case ("CONSUMPTION_REQUEST", _): "CONSUMPTION_REQUEST"
        default: nil
        }
    }

    private mutating func v1Body(
        _ event: SimulatorEvent,
        app: AppRecord,
        environment: StoreEnvironment,
        chain: SubscriptionChainRecord?,
        signer: PayloadSigner,
        now: Instant
    ) throws(SimulatorError) -> Data? {
        guard let type = Self.v1Type(event) else { return nil }
        var out = "{"
        JSONText.field(&out, "notification_type", type, first: true)
        JSONText.field(&out, "password", app.description.sharedSecret)
        JSONText.field(&out, "environment", environment == .production ? "PROD" : "Sandbox")
        JSONText.field(&out, "bid", app.bundleID)
        JSONText.field(&out, "bvrs", app.description.applicationVersion)
        if let chain {
            JSONText.field(&out, "auto_renew_status", chain.autoRenewEnabled ? "true" : "false")
            JSONText.field(&out, "auto_renew_product_id", chain.autoRenewProductID)
            JSONText.field(&out, "auto_renew_adam_id", ReceiptIssuingIDs.itemID(chain.autoRenewProductID, seed: seed))
            JSONText.field(&out, "original_transaction_id", chain.originalTransactionID)
            if event.type == "DID_CHANGE_RENEWAL_STATUS" {
                JSONText.field(&out, "auto_renew_status_change_date_ms", String(now.millisecondsSince1970))
            }
            if let intent = chain.expirationIntent {
                JSONText.field(&out, "expiration_intent", String(intent.rawValue))
            }
        }
        if let record = event.transactionID.flatMap({ transactions[$0] }), let cancellation = record.revocationDate {
            JSONText.field(&out, "cancellation_date_ms", String(cancellation.millisecondsSince1970))
            if let webOrder = record.webOrderLineItemID { JSONText.field(&out, "web_order_line_item_id", webOrder) }
        }
        let latest = try latestReceiptFragment(event.key, excludeOldTransactions: false, signer: signer, now: now)
        var unified = "{"
        JSONText.rawField(&unified, "status", "0", first: true)
        JSONText.field(&unified, "environment", environment == .production ? "Production" : "Sandbox")
        unified += "," + latest + "}"
        JSONText.rawField(&out, "unified_receipt", unified)
        return Data((out + "}").utf8)
    }
}
