package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperator;
import org.junit.jupiter.api.Test;

/**
 * What the stand-in states ({@link DeferredStates}) rely on, checked on the class files of the
 * Flink Agents version on the classpath: no class of its runtime reads an {@code ActionState}'s
 * task event, so a stand-in over the event the operator asked with (instead of the recorded one)
 * is never seen. Its memory updates and outputs are read only for a completed state, which is
 * never a stand-in; that part is the operator's code path, covered by the jobs' tests.
 */
class StandInStateReadsTest {
    private static final String ACTION_STATE = ActionState.class.getName().replace('.', '/');

    @Test
    void noClassOfFlinkAgentsRuntimeReadsAStatesTaskEvent() throws Exception {
        Map<String, List<String>> callers = actionStateMethodsCalled();
        assertTrue(callers.containsKey("isCompleted"), "the scan finds the operator's calls: " + callers);
        assertEquals(null, callers.get("getTaskEvent"), "classes of Flink Agents' runtime read a state's task event");
    }

    /** Every ActionState method a class of the runtime jar refers to, with the classes that do. */
    private static Map<String, List<String>> actionStateMethodsCalled() throws IOException, URISyntaxException {
        Path jar = Paths.get(ActionExecutionOperator.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Map<String, List<String>> callers = new TreeMap<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            Enumeration<JarEntry> entries = file.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                if (!entry.getName().endsWith(".class") || entry.getName().startsWith(ACTION_STATE + ".")) {
                    continue;
                }
                try (InputStream in = file.getInputStream(entry)) {
                    for (String method : methodsReferredTo(new DataInputStream(in), ACTION_STATE)) {
                        callers.computeIfAbsent(method, m -> new ArrayList<>()).add(entry.getName());
                    }
                }
            }
        }
        return callers;
    }

    /** The names of the methods of {@code owner} that a class file's constant pool refers to. */
    private static TreeSet<String> methodsReferredTo(DataInputStream in, String owner) throws IOException {
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor version
        in.readUnsignedShort(); // major version
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        int[] classNames = new int[count];
        List<int[]> methodRefs = new ArrayList<>(); // {class index, name-and-type index}
        int[] nameOfNameAndType = new int[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1: utf8[i] = in.readUTF(); break;
                case 7: classNames[i] = in.readUnsignedShort(); break;
                case 10: case 11: methodRefs.add(new int[] {in.readUnsignedShort(), in.readUnsignedShort()}); break;
                case 12: nameOfNameAndType[i] = in.readUnsignedShort(); in.readUnsignedShort(); break;
                case 3: case 4: case 9: case 17: case 18: in.readInt(); break;
                case 5: case 6: in.readLong(); i++; break; // 8-byte constants take two slots
                case 8: case 16: case 19: case 20: in.readUnsignedShort(); break;
                case 15: in.readUnsignedByte(); in.readUnsignedShort(); break;
                default: throw new IOException("unknown constant pool tag " + tag);
            }
        }
        TreeSet<String> methods = new TreeSet<>();
        for (int[] ref : methodRefs) {
            if (owner.equals(utf8[classNames[ref[0]]])) {
                methods.add(utf8[nameOfNameAndType[ref[1]]]);
            }
        }
        return methods;
    }
}
