import Foundation
import Synchronization

/// Counters and latency histograms, rendered as Prometheus text (`GET /metrics`).
public final class ServiceMetrics: Sendable {
    struct RequestKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    struct Histogram {
        var buckets: [Int]
        var sum = 0.0
        var count = 0

        mutating func add(_ seconds: Double, bounds: [Double]) {
            for (index, bound) in bounds.enumerated() where seconds <= bound { buckets[index] += 1 }
            sum += seconds
            count += 1
        }
    }

    struct Storage {
        var requests: [RequestKey: Int] = [:]
        var latency: [String: Histogram] = [:]
        var recognitions: [String: Int] = [:]
        var refused: [String: Int] = [:]
    }

    /// Latency bucket bounds in seconds.
    static let bounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
    let storage = Mutex(Storage())

    /// Creates empty metrics.
    public init() {}

    /// Counts one answered request and its latency. `route` is the route's pattern (`/v1/scans/{id}`),
    /// never the path (so ids and plates never become label values).
    func request(method: String, route: String, status: Int, seconds: Double) {
        storage.withLock { storage in
            storage.requests[RequestKey(method: method, route: route, status: status), default: 0] += 1
            // Updated in place: a copy taken out of the dictionary would copy its buckets on every request.
            storage.latency[route, default: Histogram(buckets: Array(repeating: 0, count: Self.bounds.count))].add(seconds, bounds: Self.bounds)
        }
    }

    /// Counts one photo read (`ok`, or the error code).
    func recognition(_ outcome: String) {
        storage.withLock { $0.recognitions[outcome, default: 0] += 1 }
    }

    /// Counts one request refused by the queue (`overloaded`, `timedOut`).
    func refused(_ reason: String) {
        storage.withLock { $0.refused[reason, default: 0] += 1 }
    }

    /// The Prometheus text exposition.
    func render(pool: WorkerPool) -> String {
        let storage = storage.withLock { $0 }
        var lines: [String] = []
        func quote(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) \(type)"] + samples.map { "\(name)\($0.labels) \($0.value)" }
        }
        let requests = storage.requests.sorted { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }
        metric(
            "seer_http_requests_total", "counter", "HTTP requests answered, by method, route and status.",
            requests.map { ("{method=\(quote($0.key.method)),route=\(quote($0.key.route)),status=\"\($0.key.status)\"}", "\($0.value)") })
        lines += ["# HELP seer_http_request_duration_seconds Time to answer a request, by route.", "# TYPE seer_http_request_duration_seconds histogram"]
        for (route, histogram) in storage.latency.sorted(by: { $0.key < $1.key }) {
            for (index, bound) in Self.bounds.enumerated() {
                lines.append("seer_http_request_duration_seconds_bucket{route=\(quote(route)),le=\"\(bound)\"} \(histogram.buckets[index])")
            }
            lines.append("seer_http_request_duration_seconds_bucket{route=\(quote(route)),le=\"+Inf\"} \(histogram.count)")
            lines.append("seer_http_request_duration_seconds_sum{route=\(quote(route))} \(histogram.sum)")
            lines.append("seer_http_request_duration_seconds_count{route=\(quote(route))} \(histogram.count)")
        }
        metric(
            "seer_recognitions_total", "counter", "Photos read, by outcome (ok or the error code).",
            storage.recognitions.sorted { $0.key < $1.key }.map { ("{outcome=\(quote($0.key))}", "\($0.value)") })
        metric(
            "seer_refused_total", "counter", "Requests refused by the worker queue, by reason.",
            storage.refused.sorted { $0.key < $1.key }.map { ("{reason=\(quote($0.key))}", "\($0.value)") })
        metric("seer_queue_depth", "gauge", "Photos waiting for a worker.", [("", "\(pool.depth)")])
        metric("seer_waiting_for_room", "gauge", "Photos waiting for room in the queue, their bodies read.", [("", "\(pool.waitingForRoom)")])
        metric("seer_workers_busy", "gauge", "Workers reading a photo.", [("", "\(pool.busy)")])
        metric("seer_workers", "gauge", "Workers in the pool.", [("", "\(pool.threads)")])
        return lines.joined(separator: "\n") + "\n"
    }
}
