import MacroTesting
import StrataMacros
import SwiftSyntaxMacroExpansion
import Testing

@Suite(.macros(["ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"])]))
struct ModelActorMacroTests {
    @Test func givesAnActorItsExecutorContainerAndInitializer() {
        assertMacro {
            """
            @ModelActor
            actor TripImporter {
                func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Trip>()) }
            }
            """
        } expansion: {
            """
            actor TripImporter {
                func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Trip>()) }

                nonisolated let modelExecutor: any StrataCore.ModelExecutor

                nonisolated let modelContainer: StrataCore.ModelContainer

                init(modelContainer: StrataCore.ModelContainer) {
                    let modelContext = StrataCore.ModelContext(modelContainer)
                    self.modelExecutor = StrataCore.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
            }

            extension TripImporter: StrataCore.ModelActor {
            }
            """
        }
    }

    @Test func aPublicFinalActorWithConformancesGetsPublicMembers() {
        assertMacro {
            """
            @ModelActor
            public final actor Repository: SomeAsyncProtocol, Sendable {
                public func all() throws -> [PersistentIdentifier] { [] }
            }
            """
        } expansion: {
            """
            public final actor Repository: SomeAsyncProtocol, Sendable {
                public func all() throws -> [PersistentIdentifier] { [] }

                public nonisolated let modelExecutor: any StrataCore.ModelExecutor

                public nonisolated let modelContainer: StrataCore.ModelContainer

                public init(modelContainer: StrataCore.ModelContainer) {
                    let modelContext = StrataCore.ModelContext(modelContainer)
                    self.modelExecutor = StrataCore.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
            }

            extension Repository: StrataCore.ModelActor {
            }
            """
        }
    }

    @Test func aClassIsRefusedWithAFixIt() {
        assertMacro {
            """
            @ModelActor
            final class Repository {
            }
            """
        } diagnostics: {
            """
            @ModelActor
            final class Repository {
                  ┬────
                  ╰─ 🛑 '@ModelActor' can only be applied to an actor; declare this class as an actor
                     ✏️ Replace 'class' with 'actor'
            }
            """
        } fixes: {
            """
            @ModelActor
            final actor Repository {
            }
            """
        } expansion: {
            """
            final actor Repository {

                nonisolated let modelExecutor: any StrataCore.ModelExecutor

                nonisolated let modelContainer: StrataCore.ModelContainer

                init(modelContainer: StrataCore.ModelContainer) {
                    let modelContext = StrataCore.ModelContext(modelContainer)
                    self.modelExecutor = StrataCore.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
            }

            extension Repository: StrataCore.ModelActor {
            }
            """
        }
    }

    @Test func aStructIsRefused() {
        assertMacro {
            """
            @ModelActor
            struct Repository {
            }
            """
        } diagnostics: {
            """
            @ModelActor
            struct Repository {
            ┬─────
            ╰─ 🛑 '@ModelActor' can only be applied to an actor; declare this struct as an actor
               ✏️ Replace 'struct' with 'actor'
            }
            """
        } fixes: {
            """
            @ModelActor
            actor Repository {
            }
            """
        } expansion: {
            """
            actor Repository {

                nonisolated let modelExecutor: any StrataCore.ModelExecutor

                nonisolated let modelContainer: StrataCore.ModelContainer

                init(modelContainer: StrataCore.ModelContainer) {
                    let modelContext = StrataCore.ModelContext(modelContainer)
                    self.modelExecutor = StrataCore.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
            }

            extension Repository: StrataCore.ModelActor {
            }
            """
        }
    }

    @Test func membersTheMacroGeneratesCannotBeDeclared() {
        assertMacro {
            """
            @ModelActor
            actor Repository {
                nonisolated let modelContainer: ModelContainer
                init(modelContainer: ModelContainer) {
                    self.modelContainer = modelContainer
                }
            }
            """
        } diagnostics: {
            """
            @ModelActor
            actor Repository {
                nonisolated let modelContainer: ModelContainer
                ┬─────────────────────────────────────────────
                ╰─ 🛑 '@ModelActor' generates 'modelContainer', so the actor cannot declare it too; remove this declaration
                   ✏️ Remove this declaration of 'modelContainer'
                init(modelContainer: ModelContainer) {
                ╰─ 🛑 '@ModelActor' generates 'init(modelContainer:)', so the actor cannot declare it too; remove this declaration
                   ✏️ Remove this declaration of 'init(modelContainer:)'
                    self.modelContainer = modelContainer
                }
            }
            """
        } fixes: {
            """
            @ModelActor
            actor Repository {
            }
            """
        } expansion: {
            """
            actor Repository {

                nonisolated let modelExecutor: any StrataCore.ModelExecutor

                nonisolated let modelContainer: StrataCore.ModelContainer

                init(modelContainer: StrataCore.ModelContainer) {
                    let modelContext = StrataCore.ModelContext(modelContainer)
                    self.modelExecutor = StrataCore.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
            }

            extension Repository: StrataCore.ModelActor {
            }
            """
        }
    }

    @Test func anExtensionIsRefused() {
        assertMacro {
            """
            @ModelActor
            extension Repository {
            }
            """
        } diagnostics: {
            """
            @ModelActor
            ╰─ 🛑 '@ModelActor' can only be applied to an actor declaration, not to this extension
            extension Repository {
            }
            """
        }
    }
}
