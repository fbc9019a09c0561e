import AppStore
import Foundation
import SubLedgerCore

extension SimulatorState {
    /// Why a subscription cannot be extended, as Apple's error answers.
    enum ExtensionRefusal: Error {
        case notFound
        case ineligible
        case maximumReached
        case familyShared
    }

    /// Whether `chain` may be extended now (Apple's eligibility rules), or why not.
    func extensionRefusal(_ chain: SubscriptionChainRecord, now: Instant) -> ExtensionRefusal? {
        if chain.sharedFromOriginalTransactionID != nil { return .familyShared }
        // Expired, revoked, billing retry and a grace period (whose expiry is past) are all ineligible.
        guard chain.status == .active, chain.expiresDate > now else { return .ineligible }
        if let latest = transactions[chain.latestTransactionID], latest.isFreeTrial { return .ineligible }
        if extensions.count(chain.originalTransactionID, before: now) >= RenewalExtensionLimits.maximumPerWindow {
            return .maximumReached
        }
        return nil
    }

    /// Moves an eligible subscription's renewal date (its expiry and its current transaction's) by `days`,
    /// with its family members' copies, and emits `RENEWAL_EXTENDED` for each. Returns the new expiry.
    @discardableResult
    mutating func extendSubscription(
        _ originalTransactionID: String, days: Int, requestIdentifier: String, now: Instant,
        sandboxDurations: Bool
    ) -> Instant? {
        guard var chain = chains[originalTransactionID] else { return nil }
        let milliseconds = DayLength.milliseconds(days: days, sandbox: sandboxDurations)
        chain.expiresDate = chain.expiresDate.adding(milliseconds: milliseconds)
        save(chain)
        if var latest = transactions[chain.latestTransactionID], let expires = latest.expiresDate {
            latest.expiresDate = expires.adding(milliseconds: milliseconds)
            save(latest)
        }
        extensions.granted[originalTransactionID, default: []].append(
            .init(requestIdentifier: requestIdentifier, date: now, days: days))
        emit(
            "RENEWAL_EXTENDED", key: AccountAppKey(appleID: chain.appleID, bundleID: chain.bundleID),
            transactionID: chain.latestTransactionID)
        for (_, memberOriginalID) in chain.familyShares.sorted(by: { $0.key < $1.key }) {
            guard var member = chains[memberOriginalID], member.status == .active else { continue }
            member.expiresDate = member.expiresDate.adding(milliseconds: milliseconds)
            save(member)
            if var latest = transactions[member.latestTransactionID], let expires = latest.expiresDate {
                latest.expiresDate = expires.adding(milliseconds: milliseconds)
                save(latest)
            }
            emit(
                "RENEWAL_EXTENDED", key: AccountAppKey(appleID: member.appleID, bundleID: member.bundleID),
                transactionID: member.latestTransactionID)
        }
        return chain.expiresDate
    }

    /// Completes a mass extension: every active subscriber of the product (in the storefronts asked for)
    /// that is eligible is extended; the others count as failed, each with `RENEWAL_EXTENSION` / `FAILURE`.
    /// Then `RENEWAL_EXTENSION` / `SUMMARY`.
    mutating func completeMassExtension(
        key: String, signer: PayloadSigner, _ context: Context
    ) throws(SimulatorError) {
        guard var request = extensions.massRequests[key], !request.complete else { return }
        let candidates = chains.values
            .filter {
                $0.bundleID == request.bundleID && $0.environment == request.environment
                    && $0.productID == request.productID && $0.sharedFromOriginalTransactionID == nil
                    && $0.status == .active && $0.expiresDate > context.now
            }
            .filter { chain in
                guard let storefronts = request.storefrontCountryCodes else { return true }
                return storefronts.contains(accounts[chain.appleID]?.storefront ?? "")
            }
            .sorted { $0.originalTransactionID < $1.originalTransactionID }
        for chain in candidates {
            if extensionRefusal(chain, now: context.now) == nil {
                extendSubscription(
                    chain.originalTransactionID, days: request.days, requestIdentifier: request.requestIdentifier,
                    now: context.now, sandboxDurations: context.sandboxDurations)
                request.succeededCount += 1
            } else {
                // Apple tells the developer about each subscription it could not extend.
                request.failedCount += 1
                emit(
                    "RENEWAL_EXTENSION", "FAILURE",
                    key: AccountAppKey(appleID: chain.appleID, bundleID: chain.bundleID),
                    transactionID: chain.latestTransactionID)
            }
        }
        request.complete = true
        request.completeDate = context.now
        extensions.massRequests[key] = request
        try appendSummaryNotification(request, signer: signer, now: context.now)
    }

    /// `RENEWAL_EXTENSION` / `SUMMARY`: a V2 notification that carries a `summary` instead of `data`.
    /// (V1 has no such notification; a V1 app gets it only through Get Notification History.)
    private mutating func appendSummaryNotification(
        _ request: ExtensionsBook.MassRequest, signer: PayloadSigner, now: Instant
    ) throws(SimulatorError) {
        let app = try app(request.bundleID)
        let uuid = ids.uuid()
        let payload = ResponseBodyV2DecodedPayload(
            rawNotificationType: "RENEWAL_EXTENSION", rawSubtype: "SUMMARY", notificationUUID: uuid,
            version: "2.0", signedDate: now.millisecondsSince1970,
            summary: AppStore.NotificationSummary(
                rawEnvironment: request.environment.rawValue, appAppleID: app.description.appAppleID,
                bundleID: app.bundleID, productID: request.productID, requestIdentifier: request.requestIdentifier,
                storefrontCountryCodes: request.storefrontCountryCodes, succeededCount: request.succeededCount,
                failedCount: request.failedCount))
        let signedPayload = try signer.sign(payload)
        let body: Data? =
            app.description.notificationVersion == "V1"
            ? nil : Data(("{\"signedPayload\":" + JSONText.quoted(signedPayload) + "}").utf8)
        let url = app.description.notificationURL ?? notifications.settings.defaultURL
        notifications.append(
            NotificationRecord(
                uuid: uuid, bundleID: app.bundleID, appleID: nil, environment: request.environment,
                type: "RENEWAL_EXTENSION", subtype: "SUMMARY", transactionID: nil, originalTransactionID: nil,
                createdAt: now, signedPayload: signedPayload, body: body, url: url,
                nextAttemptAt: url != nil && body != nil ? now : nil, dispatchOrder: 0))
    }
}
