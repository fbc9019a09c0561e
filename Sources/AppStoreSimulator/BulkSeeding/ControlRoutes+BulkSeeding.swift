import Foundation
import Hummingbird
import NIOCore

extension ControlRoutes {
    /// `POST /control/bulk-chains`: JSON (`BulkSeedResult`) or, with `"format": "csv"`, the import file.
    func registerBulkSeeding(on group: RouterGroup<BasicRequestContext>) {
        group.post("bulk-chains") { request, _ in
            var request = request
            let buffer = try await request.collectBody(upTo: 64 * 1024)
            let body: BulkSeedRequest
            do {
                body = try ControlJSON.decoder.decode(BulkSeedRequest.self, from: Data(buffer.readableBytesView))
            } catch {
                return Self.error(SimulatorError(.badRequest, "body is not a valid BulkSeedRequest: \(error)"))
            }
            let format = body.format ?? "json"
            guard format == "json" || format == "csv" else {
                return Self.error(SimulatorError(.badRequest, "format must be json or csv"))
            }
            do throws(SimulatorError) {
                let result = try control.seedChains(body)
                guard format == "csv" else { return Self.json(result) }
                return Response(
                    status: .ok, headers: [.contentType: "text/csv"],
                    body: .init(byteBuffer: ByteBuffer(string: result.csv)))
            } catch {
                return Self.error(error)
            }
        }
    }
}
