/// Apple's `SendReportSuccessResponse`: the report passed validation.
public struct SendReportSuccessResponse: Codable, Hashable, Sendable {
    /// Apple's `requestIdentifier`, the report's.
    public var requestIdentifier: String?

    /// Creates a response.
    public init(requestIdentifier: String?) { self.requestIdentifier = requestIdentifier }
}

/// Apple's `SendReportErrorResponse`: nothing of the report was accepted; `errors` says why.
public struct SendReportErrorResponse: Codable, Hashable, Sendable {
    /// Apple's `errors`.
    public var errors: [ExternalPurchaseReportError]?

    /// Creates a response.
    public init(errors: [ExternalPurchaseReportError]) { self.errors = errors }
}

/// One of Apple's report error objects (`OmittedFieldError`, `NotFoundError`, ...), told apart by `errorCode`.
public struct ExternalPurchaseReportError: Codable, Hashable, Sendable {
    /// Apple's `errorCode`; see `ExternalPurchaseReportErrorCode`.
    public var errorCode: Int64?
    /// Apple's `errorMessage`.
    public var errorMessage: String?
    /// Apple's `fieldName`: the field at fault.
    public var fieldName: String?
    /// Apple's `lineItemId`: the line item at fault, when one is.
    public var lineItemID: String?

    /// Creates an error object.
    public init(errorCode: Int64?, errorMessage: String?, fieldName: String?, lineItemID: String? = nil) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.fieldName = fieldName
        self.lineItemID = lineItemID
    }

    enum CodingKeys: String, CodingKey {
        case errorCode, errorMessage, fieldName
        case lineItemID = "lineItemId"
    }
}

/// The `errorCode` values of Apple's report error objects that this code knows, with Apple's messages
/// (https://developer.apple.com/documentation/externalpurchaseserverapi/errorcodes).
public enum ExternalPurchaseReportErrorCode: Int64, Hashable, Sendable, CaseIterable {
    /// `DuplicateValueError`: a `requestIdentifier` or `lineItemId` already accepted.
    case duplicateValue = 1
    /// `NotFoundError`: an `externalPurchaseId`, `referenceLineItemId` or `requestIdentifier` Apple does not know.
    case notFound = 3
    /// `OmittedFieldError`: a required field is missing.
    case omittedField = 4
    /// `FutureDateError`: `creationDate` is in the future.
    case futureDate = 6
    /// `UnknownEnumError`: a value outside an enumeration (Apple names `reportingCurrency` and `taxCountry`).
    case unknownEnum = 7
    /// `LineItemsNotAllowedForStatusError`: line items with `NO_LINE_ITEM` or `UNRECOGNIZED_TOKEN`.
    case lineItemsNotAllowedForStatus = 10
    /// `IncorrectAmountTaxInclusiveError`: tax-exclusive amount plus tax is not the tax-inclusive amount.
    case incorrectAmountTaxInclusive = 11
    /// `ReferenceInvalidSubscriptionEventError`: a renewal references a line item that is no `SUBSCRIPTION_START`.
    case referenceInvalidSubscriptionEvent = 14
    /// `NegativeValueNotAllowedError`: a negative amount or day count.
    case negativeValueNotAllowed = 15
    /// `MaximumLengthExceededError`: a field longer than Apple allows.
    case maximumLengthExceeded = 19

    /// Apple's `errorMessage` for the code.
    public var message: String {
        switch self {
        case .duplicateValue: "The field's value is already submitted and a duplicate value is not expected."
        case .notFound: "The referenced value was not found."
        case .omittedField: "A required field is missing."
        case .futureDate: "The provided date field is in the future and future values are not allowed."
        case .unknownEnum: "The provided value is unknown for an enumeration."
        case .lineItemsNotAllowedForStatus:
            "A line item was provided for an external purchase ID that has a NO_LINE_ITEM or UNRECOGNIZED_TOKEN status."
        case .incorrectAmountTaxInclusive:
            "The tax exclusive amount plus the tax amount does not equal the tax inclusive amount."
        case .referenceInvalidSubscriptionEvent:
            "The referenced line item has no subscription event or its subscription event is not SUBSCRIPTION_START."
        case .negativeValueNotAllowed: "This field doesn't allow a negative value."
        case .maximumLengthExceeded: "The field's maximum length is exceeded."
        }
    }

    /// The error object for a field (and line item).
    public func error(field: String, lineItemID: String? = nil) -> ExternalPurchaseReportError {
        ExternalPurchaseReportError(
            errorCode: rawValue, errorMessage: message, fieldName: field, lineItemID: lineItemID)
    }
}

/// Apple's `RetrieveReportSuccessResponse`: a report sent before.
///
/// Apple's page names the `ExternalPurchaseReport` it holds but not the property's name; appstore-sim answers
/// `{"report": {...}}`, and this reads that or a report at the top level.
public struct RetrieveReportSuccessResponse: Codable, Hashable, Sendable {
    /// The report, as accepted.
    public var report: ExternalPurchaseReport?

    /// Creates a response.
    public init(report: ExternalPurchaseReport?) { self.report = report }

    enum CodingKeys: String, CodingKey { case report }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.report) {
            report = try container.decodeIfPresent(ExternalPurchaseReport.self, forKey: .report)
        } else {
            report = try ExternalPurchaseReport(from: decoder)
        }
    }
}
