import Foundation

/// Keeps results alive so the optimizer cannot drop the work.
@inline(never)
func consume(_ value: Int) {
    if value == Int.min { print("unreachable") }
}

/// Runs `body` `iterations` times per run, `runs` times, and returns the median ns per call.
func measure(iterations: Int, runs: Int = 9, _ body: () throws -> Int) rethrows -> Double {
    let clock = ContinuousClock()
    for _ in 0..<(iterations / 10) { consume(try body()) }  // warm up
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = clock.now
        for _ in 0..<iterations { consume(try body()) }
        let elapsed = clock.now - start
        let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        samples.append(ns / Double(iterations))
    }
    samples.sort()
    return samples[samples.count / 2]
}

/// `remote-auth-bench [ITERATIONS] [NAME-PREFIX]`: the prefix runs only matching operations
/// (handy under a profiler).
let only = CommandLine.arguments.dropFirst(2).first

func wanted(_ name: String) -> Bool {
    guard let only else { return true }
    return only == "pure"
        ? !(name.hasPrefix("digest-100") || name.hasPrefix("request-") || name.hasPrefix("tls-request")
            || name.hasPrefix("openapi-"))
        : name.hasPrefix(only) || only.hasPrefix(name)
}

/// Times `a` and `b` in alternating runs, so load from elsewhere on the machine falls on both
/// alike; returns each one's median ns per call.
func measurePair(
    iterations: Int,
    runs: Int = 15,
    _ a: () throws -> Int,
    _ b: () throws -> Int
) rethrows -> (Double, Double) {
    let clock = ContinuousClock()
    func time(_ body: () throws -> Int) rethrows -> Double {
        let start = clock.now
        for _ in 0..<iterations { consume(try body()) }
        let elapsed = clock.now - start
        return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9)
            / Double(iterations)
    }
    _ = try time(a)
    _ = try time(b)
    var samplesA: [Double] = []
    var samplesB: [Double] = []
    for _ in 0..<runs {
        samplesA.append(try time(a))
        samplesB.append(try time(b))
    }
    samplesA.sort()
    samplesB.sort()
    return (samplesA[runs / 2], samplesB[runs / 2])
}

func report(_ name: String, _ nsPerOp: Double) {
    print("\(name): \(Int(nsPerOp.rounded())) ns/op")
}

func format2(_ value: Double) -> String {
    let hundredths = abs(Int((value * 100).rounded()))
    let sign = value < 0 && hundredths > 0 ? "-" : ""
    return "\(sign)\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
}

/// Runs `body` on the global executor and blocks the calling thread until it is done (the
/// error, if any, ends the process). main.swift stays synchronous this way: a top-level `await`
/// would make the whole program start in `dispatch_main`, which valgrind 3.19 cannot follow, and
/// the instruction-count mode must run under valgrind.
func runAsynchronously(_ body: @escaping @Sendable () async throws -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            try await body()
        } catch {
            print("error: \(error)")
            exit(1)
        }
        done.signal()
    }
    done.wait()
}
