import AppStore
import Foundation

extension SimulatorState {
    /// Send Consumption Information (`PUT /inApps/{v1,v2}/transactions/consumption/{transactionId}`): the
    /// transaction must be the app's, in this environment; the body is checked as Apple does
    /// (`ConsumptionInformationValidation`). Every call is recorded with its answer (`GET /control/consumption`);
    /// an accepted one is answered 202 with no body.
    mutating func receiveConsumptionInformation(
        _ transactionID: String, version: String, _ request: ServerAPIResponder.Request
    ) -> SimpleResponse {
        func record(_ answer: SimpleResponse, _ refusal: ConsumptionInformationValidation.Refusal? = nil)
            -> SimpleResponse
        {
            consumptionReceived.append(
                ReceivedConsumptionInformation(
                    bundleID: request.app.bundleID,
                    environment: request.environment == .production ? "Production" : "Sandbox", version: version,
                    transactionID: transactionID, body: String(decoding: request.body, as: UTF8.self),
                    status: answer.status, errorCode: refusal?.code, errorMessage: refusal?.message,
                    receivedAt: request.now.millisecondsSince1970))
            return answer
        }
        guard version == "v1" || version == "v2" else {
            return ServerAPIError.body(4_040_000, "Not found.", status: 404)
        }
        guard !transactionID.isEmpty, transactionID.allSatisfy(\.isNumber) else {
            return record(ServerAPIError.invalidTransactionID)
        }
        guard let transaction = transactions[transactionID], transaction.bundleID == request.app.bundleID,
            transaction.environment == request.environment
        else { return record(ServerAPIError.transactionIDNotFound) }
        guard let object = try? JSONDecoder().decode([String: ReceivedJSONValue].self, from: request.body) else {
            return record(ServerAPIError.invalidRequest)
        }
        let refusal =
            version == "v2"
            ? ConsumptionInformationValidation.v2(object, autoRenewable: transaction.productType == .autoRenewable)
            : ConsumptionInformationValidation.v1(object)
        if let refusal {
            return record(ServerAPIError.body(refusal.code, refusal.message, status: 400), refusal)
        }
        return record(SimpleResponse(status: 202, body: ""))
    }
}
