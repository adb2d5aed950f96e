import FrameFlow

/// Turns a command line into a filled command: finds the subcommand path from the root,
/// then matches options, flags and positional arguments against the command's declarations.
struct CommandParser {
    let root: any ParsableCommand.Type

    /// The command `arguments` select, parsed and validated.
    func parse(_ arguments: [String]) throws -> any ParsableCommand {
        var path: [any ParsableCommand.Type] = [root]
        var i = 0
        while i < arguments.count, let current = path.last {
            let subcommands = current.configuration.subcommands
            if subcommands.isEmpty { break }
            let word = arguments[i]
            guard let sub = subcommands.first(where: { $0.configuration.commandName == word }) else {
                // An option of this command, or a positional argument it declares.
                if word.hasPrefix("-") || collectDefinitions(of: current.init()).contains(where: { $0.kind == .positional }) { break }
                let names = subcommands.map { $0.configuration.commandName }
                let hint = nearestName(to: word, in: names, minimumDistance: 2, maxLength: 64).map { " (did you mean '\($0)'?)" } ?? ""
                throw ExitRequest.usage(
                    "\(HelpGenerator.commandName(path)): unknown command '\(word)'\(hint)\n\n" + HelpGenerator.help(for: path))
            }
            if ObjectIdentifier(sub) == ObjectIdentifier(HelpCommand.self) {
                throw ExitRequest.help(HelpGenerator.help(for: try helpPath(from: path, words: Array(arguments[(i + 1)...]))))
            }
            path.append(sub)
            i += 1
        }
        return try parseCommand(path: path, arguments: Array(arguments[i...]))
    }

    /// The command `help WORDS…` names, from `path` down.
    func helpPath(from start: [any ParsableCommand.Type], words: [String]) throws -> [any ParsableCommand.Type] {
        var path = start
        for word in words where word != "-h" && word != "--help" {
            guard let current = path.last else { break }
            let names = current.configuration.subcommands.map { $0.configuration.commandName }
            guard let sub = current.configuration.subcommands.first(where: { $0.configuration.commandName == word }) else {
                let hint = nearestName(to: word, in: names, minimumDistance: 2, maxLength: 64).map { " (did you mean '\($0)'?)" } ?? ""
                throw ExitRequest.usage(
                    "\(HelpGenerator.commandName(start)) help: unknown command '\(word)'\(hint)\n"
                        + HelpGenerator.shortUsage(for: start))
            }
            path.append(sub)
        }
        return path
    }

    /// The last command of `path`, filled from `arguments` (what follows its name).
    func parseCommand(path: [any ParsableCommand.Type], arguments: [String]) throws -> any ParsableCommand {
        guard let type = path.last else { throw ExitRequest.usage("no command") }
        let command = type.init()
        let definitions = collectDefinitions(of: command)
        let positionals = definitions.indices.filter { definitions[$0].kind == .positional }
        let named = definitions.indices.filter { definitions[$0].kind != .positional }
        func failure(_ message: String) -> ExitRequest {
            ExitRequest.usage("\(HelpGenerator.commandName(path)): \(message)\n" + HelpGenerator.shortUsage(for: path))
        }
        func unknownOption(_ word: String) -> ExitRequest {
            let version = path.count == 1 && type.configuration.version != nil ? ["--version"] : []
            let candidates = named.map { "--" + definitions[$0].name } + ["--help"] + version
            let hint = nearestName(to: word, in: candidates, minimumDistance: 2, maxLength: 64).map { " (did you mean '\($0)'?)" } ?? ""
            return failure("unknown option '\(word)'\(hint)")
        }
        var given = Set<Int>()
        var nextPositional = 0
        var endOfOptions = false
        var i = 0
        while i < arguments.count {
            var word = arguments[i]
            i += 1
            // A one-letter option (`-p VALUE`) is its long form.
            if !endOfOptions, word.count == 2, word.hasPrefix("-"), named.contains(where: { "-" + definitions[$0].name == word }) {
                word = "-" + word
            }
            if !endOfOptions {
                if word == "--" {
                    endOfOptions = true
                    continue
                }
                if word == "-h" || word == "--help" { throw ExitRequest.help(HelpGenerator.help(for: path)) }
                if word == "--version", path.count == 1, let version = type.configuration.version { throw ExitRequest.help(version) }
                if word.hasPrefix("--") {
                    let body = word.dropFirst(2)
                    let eq = body.firstIndex(of: "=")
                    let name = String(body[..<(eq ?? body.endIndex)])
                    let inline = eq.map { String(body[body.index(after: $0)...]) }
                    guard let index = named.first(where: { definitions[$0].name == name }) else { throw unknownOption("--" + name) }
                    let definition = definitions[index]
                    if !definition.isRepeatable && given.contains(index) { throw failure("\(definition.displayName) is given more than once") }
                    given.insert(index)
                    if definition.kind == .flag {
                        guard inline == nil else { throw failure("\(definition.displayName) takes no value") }
                        _ = definition.store("")
                        continue
                    }
                    let value: String
                    if let inline {
                        value = inline
                    } else {
                        guard i < arguments.count, !arguments[i].hasPrefix("--") else {
                            throw failure("\(definition.displayName) needs a value (\(definition.valueName))")
                        }
                        value = arguments[i]
                        i += 1
                    }
                    guard definition.store(value) else { throw failure("\(definition.displayName) \(definition.expectation), not '\(value)'") }
                    continue
                }
                // `-x` is an option this parser does not know; `-` alone and `-1` are values.
                if word.count > 1, word.hasPrefix("-"), let second = word.dropFirst().first, second.isLetter {
                    throw unknownOption(word)
                }
            }
            guard nextPositional < positionals.count else { throw failure("unexpected argument '\(word)'") }
            let index = positionals[nextPositional]
            let definition = definitions[index]
            guard definition.store(word) else { throw failure("\(definition.valueName) \(definition.expectation), not '\(word)'") }
            given.insert(index)
            if !definition.isRepeatable { nextPositional += 1 }
        }
        for index in definitions.indices where definitions[index].isRequired && !given.contains(index) {
            let d = definitions[index]
            throw failure(d.kind == .positional ? "missing \(d.valueName)" : "missing \(d.displayName) \(d.valueName)")
        }
        var filled = command
        do {
            for group in collectGroups(of: filled) { try group.validateGroup() }
            try filled.validate()
        } catch let error as ValidationError {
            throw failure(error.message)
        }
        return filled
    }
}
