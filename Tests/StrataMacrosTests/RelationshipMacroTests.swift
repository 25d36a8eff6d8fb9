import MacroTesting
import StrataMacros
import Testing

@Suite(
    .macros([
        "Model": ModelMacro.self, "_PersistedProperty": PersistedPropertyMacro.self,
        "Attribute": AttributeMacro.self, "Relationship": RelationshipMacro.self,
        "Transient": TransientMacro.self, "Unique": UniqueMacro.self, "Index": IndexMacro.self,
    ])
)
struct RelationshipMacroTests {
    @Test func expandsToNothing() {
        assertMacro {
            #"""
            final class Trip {
                @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip) var bucketList: [BucketListItem] = []
            }
            """#
        } expansion: {
            """
            final class Trip {
                var bucketList: [BucketListItem] = []
            }
            """
        }
    }

    @Test func rejectsRelationshipWithTransient() {
        assertMacro {
            #"""
            final class Trip {
                @Relationship @Transient var owner: Person? = nil
            }
            """#
        } diagnostics: {
            """
            final class Trip {
                @Relationship @Transient var owner: Person? = nil
                ┬────────────
                ╰─ 🛑 property 'owner' cannot be both '@Relationship' and '@Transient'; keep only one of them
            }
            """
        }
    }
}
