import Hummingbird

extension ControlRoutes {
    /// `GET /control/rate-limits` and `PUT /control/rate-limits`.
    func registerRateLimits(on group: RouterGroup<BasicRequestContext>) {
        group.get("rate-limits") { _, _ in Self.json(control.rateLimits()) }
        group.put("rate-limits") { request, _ in
            try await Self.run(request, RateLimitSettings.self, allowEmpty: true) { body throws(SimulatorError) in
                try control.setRateLimits(body)
            }
        }
    }
}
