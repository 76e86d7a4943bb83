package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablejournal.internal.NativeLibrary;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Java copies of the constants shared with Rust and Python, against tests/vectors/constants.json. */
class SharedConstantsTest {
    private static JsonNode shared() {
        return TestVectors.read("constants.json");
    }

    private static Map<String, Integer> table(JsonNode node) {
        Map<String, Integer> out = new LinkedHashMap<>();
        node.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().intValue()));
        return out;
    }

    private static int staticInt(String className, String field) throws ReflectiveOperationException {
        Field f = Class.forName(className).getDeclaredField(field);
        f.setAccessible(true);
        return f.getInt(null);
    }

    @Test
    void errorCodesMatchTheSharedTableInBothDirections() throws IOException {
        Map<String, Integer> java = new LinkedHashMap<>();
        for (JournalException.Code code : JournalException.Code.values()) {
            if (code != JournalException.Code.UNKNOWN) {
                java.put(code.name(), code.number());
            }
        }
        assertEquals(table(shared().get("error_codes")), java);
    }

    @Test
    void jniVersionMatchesTheLoadedLibraryAndTheLoader() throws Exception {
        int expected = shared().get("jni_version").intValue();
        assertEquals(expected, staticInt("io.durablejournal.internal.NativeLibrary", "EXPECTED_JNI_VERSION"));
        // load() refuses a library whose JNI version differs from EXPECTED_JNI_VERSION.
        NativeLibrary.load();
    }

    @Test
    void keyAndEventKindsMatchTheSharedTable() throws Exception {
        JsonNode all = shared();
        for (Map.Entry<String, Integer> kind : table(all.get("business_key_kinds")).entrySet()) {
            assertEquals(kind.getValue(), staticInt("io.durablejournal.store.BusinessKey", kind.getKey()), kind.getKey());
        }
        for (Map.Entry<String, Integer> kind : table(all.get("event_identity_kinds")).entrySet()) {
            assertEquals(kind.getValue(), staticInt("io.durablejournal.store.EventIdentity", kind.getKey()), kind.getKey());
        }
    }

    @Test
    void callStepKindsAndSlotStatusesMatchTheSharedTable() throws Exception {
        JsonNode all = shared();
        for (Map.Entry<String, Integer> kind : table(all.get("call_step_kinds")).entrySet()) {
            assertEquals(kind.getValue(), staticInt("io.durablejournal.CallStep", kind.getKey()), kind.getKey());
        }
        Map<String, Integer> semantics = new LinkedHashMap<>();
        for (CallSemantics each : CallSemantics.values()) {
            semantics.put(each.name(), each.number());
        }
        assertEquals(table(all.get("call_semantics")), semantics);
        // JournalSlot reads the status as an ordinal of CallResult.Status.
        Map<String, Integer> statuses = new LinkedHashMap<>();
        for (CallResult.Status status : CallResult.Status.values()) {
            statuses.put(status.name(), status.ordinal());
        }
        assertEquals(table(all.get("journal_slot_statuses")), statuses);
    }

    @Test
    void filePermissionChecksAreTheOrdinalsTheNativeStoreReads() throws Exception {
        Map<String, Integer> checks = new LinkedHashMap<>();
        for (io.durablejournal.store.FileStoreOptions.PermissionCheck check : io.durablejournal.store.FileStoreOptions.PermissionCheck.values()) {
            checks.put(check.name(), check.ordinal());
        }
        assertEquals(table(shared().get("file_permission_checks")), checks);
    }

    @Test
    void canonicalNestingLimitMatches() throws Exception {
        assertEquals(shared().get("canonical_max_nesting").intValue(), staticInt("io.durablejournal.identity.CanonicalTree", "MAX_NESTING"));
    }
}
