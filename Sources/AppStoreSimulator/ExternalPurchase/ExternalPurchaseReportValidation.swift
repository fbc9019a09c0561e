import AppStore
import SubLedgerCore

/// The checks Send External Purchase Report makes before accepting anything, with the error objects Apple
/// documents (docs/reference/appstore-sim.md lists which). Every error is collected, as Apple's `errors` array
/// lists them all.
extension ExternalPurchaseBook {
    /// Apple's limit on `lineItemId`.
    static let maximumLineItemIDLength = 128

    func check(_ report: ExternalPurchaseReport, scope: Scope, now: Instant) -> [ExternalPurchaseReportError] {
        var errors: [ExternalPurchaseReportError] = []
        if let identifier = report.requestIdentifier, !identifier.isEmpty {
            if reports[ReportKey(scope: scope, requestIdentifier: identifier.lowercased())] != nil {
                errors.append(ExternalPurchaseReportErrorCode.duplicateValue.error(field: "requestIdentifier"))
            }
        } else {
            errors.append(ExternalPurchaseReportErrorCode.omittedField.error(field: "requestIdentifier"))
        }
        if let id = report.externalPurchaseID, !id.isEmpty {
            let issued = tokens[id].map { $0.bundleID == scope.bundleID && $0.environment == scope.environment }
            if issued != true {
                errors.append(ExternalPurchaseReportErrorCode.notFound.error(field: "externalPurchaseId"))
            }
        } else {
            errors.append(ExternalPurchaseReportErrorCode.omittedField.error(field: "externalPurchaseId"))
        }
        guard let rawStatus = report.rawStatus, !rawStatus.isEmpty else {
            return errors + [ExternalPurchaseReportErrorCode.omittedField.error(field: "status")]
        }
        guard let status = report.status else {
            return errors + [ExternalPurchaseReportErrorCode.unknownEnum.error(field: "status")]
        }
        switch status {
        case .lineItem:
            let items = report.lineItems ?? []
            // Apple documents MissingLineItemsForStatusError for this case without its code; the omitted-field
            // object names the missing field instead.
            if items.isEmpty { errors.append(ExternalPurchaseReportErrorCode.omittedField.error(field: "lineItems")) }
            errors += check(items, externalPurchaseID: report.externalPurchaseID ?? "", scope: scope, now: now)
        case .noLineItem, .unrecognizedToken, .duplicateToken:
            if report.lineItems != nil {
                errors.append(ExternalPurchaseReportErrorCode.lineItemsNotAllowedForStatus.error(field: "status"))
            }
        }
        return errors
    }

    private func check(
        _ items: [ExternalPurchaseLineItem], externalPurchaseID: String, scope: Scope, now: Instant
    ) -> [ExternalPurchaseReportError] {
        var errors: [ExternalPurchaseReportError] = []
        // Line items earlier in the same report count as known to later ones.
        var known: [String: AcceptedLineItem] = [:]
        for item in items {
            let id = item.lineItemID
            func fail(_ code: ExternalPurchaseReportErrorCode, _ field: String) {
                errors.append(code.error(field: field, lineItemID: id))
            }
            if let id, !id.isEmpty {
                if id.count > Self.maximumLineItemIDLength {
                    fail(.maximumLengthExceeded, "lineItemId")
                } else if known[id] != nil
                    || (lineItems[LineItemKey(scope: scope, lineItemID: id)] != nil && item.restatement != true)
                {
                    fail(.duplicateValue, "lineItemId")
                }
            } else {
                fail(.omittedField, "lineItemId")
            }
            if let created = item.creationDate {
                if created > now.millisecondsSince1970 { fail(.futureDate, "creationDate") }
            } else {
                fail(.omittedField, "creationDate")
            }
            errors += Self.checkAmounts(item)
            switch (item.rawEventType, item.eventType) {
            case (nil, _): fail(.omittedField, "eventType")
            case (_, nil): fail(.unknownEnum, "eventType")
            case (_, .buy?): errors += checkBuy(item, known: known, scope: scope)
            case (_, .refund?):
                if let reference = item.referenceLineItemID {
                    if known[reference] == nil,
                        lineItems[LineItemKey(scope: scope, lineItemID: reference)] == nil
                    {
                        fail(.notFound, "referenceLineItemId")
                    }
                } else {
                    fail(.omittedField, "referenceLineItemId")
                }
            }
            if let id, !id.isEmpty {
                known[id] = AcceptedLineItem(
                    externalPurchaseID: externalPurchaseID, eventType: item.eventType,
                    rawSubscriptionEvent: item.rawSubscriptionEvent)
            }
        }
        return errors
    }

    /// The amounts every line item states: present, not negative, and tax-exclusive plus tax equal to
    /// tax-inclusive; the currencies and tax country present and three capital letters.
    private static func checkAmounts(_ item: ExternalPurchaseLineItem) -> [ExternalPurchaseReportError] {
        var errors: [ExternalPurchaseReportError] = []
        let amounts: [(String, Int64?)] = [
            ("amountTaxInclusive", item.amountTaxInclusive), ("amountTaxExclusive", item.amountTaxExclusive),
            ("taxAmount", item.taxAmount), ("netAmountTaxExclusive", item.netAmountTaxExclusive),
        ]
        for (field, value) in amounts {
            if let value {
                if value < 0 {
                    errors.append(
                        ExternalPurchaseReportErrorCode.negativeValueNotAllowed.error(
                            field: field, lineItemID: item.lineItemID))
                }
            } else {
                errors.append(
                    ExternalPurchaseReportErrorCode.omittedField.error(field: field, lineItemID: item.lineItemID))
            }
        }
        if let inclusive = item.amountTaxInclusive, let exclusive = item.amountTaxExclusive, let tax = item.taxAmount {
            let (sum, overflow) = exclusive.addingReportingOverflow(tax)
            if overflow || sum != inclusive {
                errors.append(
                    ExternalPurchaseReportErrorCode.incorrectAmountTaxInclusive.error(
                        field: "amountTaxInclusive", lineItemID: item.lineItemID))
            }
        }
        let codes: [(String, String?)] = [
            ("reportingCurrency", item.reportingCurrency), ("pricingCurrency", item.pricingCurrency),
            ("taxCountry", item.taxCountry),
        ]
        for (field, value) in codes {
            if let value {
                if value.utf8.count != 3 || !value.utf8.allSatisfy({ (65...90).contains($0) }) {
                    errors.append(
                        ExternalPurchaseReportErrorCode.unknownEnum.error(field: field, lineItemID: item.lineItemID))
                }
            } else {
                errors.append(
                    ExternalPurchaseReportErrorCode.omittedField.error(field: field, lineItemID: item.lineItemID))
            }
        }
        errors += checkCurrencies(item)
        return errors
    }

    /// Apple's currency rule: the reporting currency one Apple lists; the pricing currency's own when Apple lists
    /// it (and then no `exchangeRate`), else EUR or USD with the positive `exchangeRate` used.
    private static func checkCurrencies(_ item: ExternalPurchaseLineItem) -> [ExternalPurchaseReportError] {
        func isCode(_ text: String) -> Bool { text.utf8.count == 3 && text.utf8.allSatisfy { (65...90).contains($0) } }
        // A currency missing or not a code was refused above.
        guard let reporting = item.reportingCurrency, let pricing = item.pricingCurrency, isCode(reporting),
            isCode(pricing)
        else { return [] }
        func error(_ code: ExternalPurchaseReportErrorCode, _ field: String) -> ExternalPurchaseReportError {
            code.error(field: field, lineItemID: item.lineItemID)
        }
        guard ExternalPurchaseCurrencies.reporting.contains(reporting) else {
            return [error(.unknownEnum, "reportingCurrency")]
        }
        if ExternalPurchaseCurrencies.reporting.contains(pricing) {
            if reporting != pricing { return [error(.unknownEnum, "reportingCurrency")] }
            return []
        }
        guard ["EUR", "USD"].contains(reporting) else { return [error(.unknownEnum, "reportingCurrency")] }
        guard let rate = item.exchangeRate else { return [error(.omittedField, "exchangeRate")] }
        return rate.isFinite && rate > 0 ? [] : [error(.negativeValueNotAllowed, "exchangeRate")]
    }

    /// A `BUY`: its product, and for a subscription its event, period and (after the start) the
    /// `SUBSCRIPTION_START` line item it references.
    private func checkBuy(_ item: ExternalPurchaseLineItem, known: [String: AcceptedLineItem], scope: Scope)
        -> [ExternalPurchaseReportError]
    {
        var errors: [ExternalPurchaseReportError] = []
        func fail(_ code: ExternalPurchaseReportErrorCode, _ field: String) {
            errors.append(code.error(field: field, lineItemID: item.lineItemID))
        }
        if item.productIdentifier?.isEmpty ?? true { fail(.omittedField, "productIdentifier") }
        if item.quantity == nil { fail(.omittedField, "quantity") }
        switch (item.rawProductType, item.productType) {
        case (nil, _): fail(.omittedField, "productType")
        case (_, nil): fail(.unknownEnum, "productType")
        case (_, .oneTimeBuy?): break
        case (_, .subscription?):
            if item.subscriptionStartDate == nil { fail(.omittedField, "subscriptionStartDate") }
            if item.subscriptionEndDate == nil { fail(.omittedField, "subscriptionEndDate") }
            if let days = item.subscriptionDaysOfPaidService {
                if days < 0 { fail(.negativeValueNotAllowed, "subscriptionDaysOfPaidService") }
            } else {
                fail(.omittedField, "subscriptionDaysOfPaidService")
            }
            guard let event = item.rawSubscriptionEvent, !event.isEmpty else {
                fail(.omittedField, "subscriptionEvent")
                break
            }
            guard event != ExternalPurchaseSubscriptionEvent.subscriptionStart.rawValue else { break }
            guard let reference = item.referenceLineItemID else {
                fail(.omittedField, "referenceLineItemId")
                break
            }
            guard let referenced = known[reference] ?? lineItems[LineItemKey(scope: scope, lineItemID: reference)]
            else {
                fail(.notFound, "referenceLineItemId")
                break
            }
            if referenced.rawSubscriptionEvent != ExternalPurchaseSubscriptionEvent.subscriptionStart.rawValue {
                fail(.referenceInvalidSubscriptionEvent, "referenceLineItemId")
            }
        }
        return errors
    }
}
