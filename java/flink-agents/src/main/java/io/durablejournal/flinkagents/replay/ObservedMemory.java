package io.durablejournal.flinkagents.replay;

import java.util.List;
import java.util.Map;
import org.apache.flink.agents.api.context.MemoryObject;
import org.apache.flink.agents.api.context.MemoryRef;

/**
 * Flink Agents' memory object of a replayed action, telling its {@link ReplayMemory} of every
 * read: a read of memory the retained history cannot rebuild ends the action there instead of
 * answering a value production may not have had. Writes go through (they are compared).
 */
final class ObservedMemory implements MemoryObject {
    private final MemoryObject memory;
    private final ReplayMemory.Reads reads;

    ObservedMemory(MemoryObject memory, ReplayMemory.Reads reads) {
        this.memory = memory;
        this.reads = reads;
    }

    private MemoryObject observed(MemoryObject found) {
        return found == null ? null : new ObservedMemory(found, reads);
    }

    @Override
    public MemoryObject get(String path) throws Exception {
        reads.read();
        return observed(memory.get(path));
    }

    @Override
    public MemoryObject get(MemoryRef ref) throws Exception {
        reads.read();
        return observed(memory.get(ref));
    }

    @Override
    public MemoryRef set(String path, Object value) throws Exception {
        return memory.set(path, value);
    }

    @Override
    public MemoryObject newObject(String path, boolean overwrite) throws Exception {
        return observed(memory.newObject(path, overwrite));
    }

    @Override
    public boolean isExist(String path) {
        reads.read();
        return memory.isExist(path);
    }

    @Override
    public List<String> getFieldNames() throws Exception {
        reads.read();
        return memory.getFieldNames();
    }

    @Override
    public Map<String, Object> getFields() throws Exception {
        reads.read();
        return memory.getFields();
    }

    @Override
    public Object getValue() throws Exception {
        reads.read();
        return memory.getValue();
    }

    @Override
    public boolean isNestedObject() throws Exception {
        reads.read();
        return memory.isNestedObject();
    }
}
