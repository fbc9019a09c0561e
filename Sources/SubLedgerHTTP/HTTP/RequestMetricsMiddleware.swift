import HTTPTypes
import Hummingbird
import Metrics
import Synchronization

/// Counts and times every request under the names and dimensions of Hummingbird's `MetricsMiddleware`
/// (`hb.requests`, `http.server.request.duration`, `hb.request.errors`, `http.server.active_requests`), so
/// dashboards and `/metrics` read the same, but without wrapping the response body.
///
/// Hummingbird's middleware records after the body is written by turning every body into a closure. Hummingbird
/// writes a single-buffer body together with its head and end (one `writev`), a closure body after its head has
/// gone out on its own, so the wrapping cost every answer a second write and its hops. Every body SubLedger answers
/// is one buffer, complete when the handler returns, so the duration is taken there.
///
/// The names, dimensions and handles are `RequestMetrics`', which the entitlement read answered on the event loop
/// (`EntitlementReadRoute`) records into too.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: RequestMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = ContinuousClock.now
        let active = metrics.activeRequests(request.method)
        active.increment()
        defer { active.decrement() }
        do {
            let response = try await next(request, context)
            let endpoint = metrics.endpoint(context.endpointPath ?? "Unknown", request.method, response.status)
            endpoint.requests.increment()
            endpoint.duration.recordNanoseconds(Self.nanoseconds(started.duration(to: .now)))
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let endpoint = metrics.endpoint(context.endpointPath ?? "NotFound", request.method, status)
            endpoint.requests.increment()
            endpoint.errors.increment()
            throw error
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue &+ attoseconds / 1_000_000_000
    }
}

/// The request metrics of the service, one definition for every way a request is answered: the metric handles
/// of each method and of each route, method and status, made once and then looked up.
final class RequestMetrics: Sendable {
    struct Endpoint: Hashable {
        var route: String
        var method: HTTPRequest.Method
        var status: Int
    }

    struct EndpointMetrics: Sendable {
        let requests: Counter
        let duration: Timer
        let errors: Counter
    }

    private let methods = Mutex<[HTTPRequest.Method: Meter]>([:])
    private let endpoints = Mutex<[Endpoint: EndpointMetrics]>([:])
    /// Where the handles are made: the process's backend (`ServiceMetrics`) but in tests.
    private let factory: any MetricsFactory

    init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    func activeRequests(_ method: HTTPRequest.Method) -> Meter {
        methods.withLock { made in
            if let meter = made[method] { return meter }
            let meter = Meter(
                label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)],
                factory: factory)
            made[method] = meter
            return meter
        }
    }

    func endpoint(_ route: String, _ method: HTTPRequest.Method, _ status: HTTPResponse.Status) -> EndpointMetrics {
        let key = Endpoint(route: route, method: method, status: status.code)
        return endpoints.withLock { made in
            if let metrics = made[key] { return metrics }
            let dimensions = [
                ("http.route", route), ("http.request.method", method.rawValue),
                ("http.response.status_code", String(status.code)),
            ]
            let metrics = EndpointMetrics(
                requests: Counter(label: "hb.requests", dimensions: dimensions, factory: factory),
                duration: Timer(
                    label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds,
                    factory: factory),
                errors: Counter(
                    label: "hb.request.errors",
                    dimensions: [
                        ("http.route", route), ("http.request.method", method.rawValue),
                        ("error.type", String(status.code)),
                    ], factory: factory))
            made[key] = metrics
            return metrics
        }
    }
}
