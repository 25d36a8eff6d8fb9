import Foundation

/// Runs every mode in its own process and prints save and reload times, peak memory and
/// file size side by side, with the ratios of Apple's sample approach to the json-c store.
enum JSONReport {
    struct Result {
        var times: [String: Double] = [:]
        var fileMB = 0.0
        var peakMB = 0.0
    }

    static func run(modes: [String], count: Int) throws {
        var results: [String: Result] = [:]
        for mode in modes {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = [mode, String(count)]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            print(output, terminator: "")
            results[mode] = parse(output)
        }
        func row(_ mode: String, _ label: String) -> String {
            guard let result = results[mode] else { return "| \(label) | – | – | – | – |" }
            let save = result.times["save"] ?? result.times["encode + write"] ?? 0
            let reload = (result.times["open (reload)"] ?? 0) + (result.times["fetch all"] ?? result.times["read + decode"] ?? 0)
            return String(format: "| %@ | %.3f | %.3f | %.0f | %.1f |", label, save, reload, result.peakMB, result.fileMB)
        }
        print("\nN = \(count)")
        print("| store | save s | reload s | peak RSS MiB | file MB |")
        print("|---|---:|---:|---:|---:|")
        print(row("jsonc", "JSONStore (json-c)"))
        print(row("sample", "Apple-sample-style store (JSONEncoder/JSONDecoder of snapshots)"))
        print(row("memory", "MemoryStore (framework work alone, no file)"))
        print(row("codable", "Plain Codable structs, encode/decode only"))
        if let json = results["jsonc"], let sample = results["sample"], let jsonSave = json.times["save"],
            let sampleSave = sample.times["save"]
        {
            let jsonReload = (json.times["open (reload)"] ?? 0) + (json.times["fetch all"] ?? 0)
            let sampleReload = (sample.times["open (reload)"] ?? 0) + (sample.times["fetch all"] ?? 0)
            print(String(format: "\nsample / json-c: save %.2f×, reload %.2f×, peak memory %.2f×",
                sampleSave / jsonSave, sampleReload / jsonReload, sample.peakMB / json.peakMB))
        }
    }

    static func parse(_ output: String) -> Result {
        var result = Result()
        for line in output.split(separator: "\n") {
            let text = String(line)
            if text.hasPrefix("file:") {
                let numbers = text.split(whereSeparator: { !"0123456789.".contains($0) }).compactMap { Double($0) }
                if numbers.count >= 2 { result.fileMB = numbers[0]; result.peakMB = numbers[1] }
            } else if let colon = text.range(of: ": "), text.hasSuffix(" s") {
                let label = String(text[..<colon.lowerBound])
                let value = Double(text[colon.upperBound...].dropLast(2))
                result.times[label] = value
            }
        }
        return result
    }
}
