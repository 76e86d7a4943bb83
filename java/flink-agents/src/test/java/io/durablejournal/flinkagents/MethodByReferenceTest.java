package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.durablejournal.flinkagents.demo.SupportAgent;
import io.durablejournal.flinkagents.demo.SupportRequest;
import java.lang.reflect.Method;
import org.apache.flink.agents.plan.JavaFunction;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Kryo copies of Flink Agents' {@code JavaFunction}, as the heap state backend makes of the
 * action tasks in keyed state while a snapshot runs.
 */
class MethodByReferenceTest {
    private static JavaFunction resolvedFunction() throws Exception {
        JavaFunction function = new JavaFunction(SupportAgent.class, "expectedAnswer", new Class<?>[] {SupportRequest.class});
        function.getMethod();
        return function;
    }

    private static TypeSerializer<Object> kryo(SerializerConfigImpl config) {
        return TypeInformation.of(Object.class).createSerializer(config);
    }

    @Test
    void withFlinksDefaultsAKryoCopyOfAResolvedFunctionCannotBeCalled() throws Exception {
        JavaFunction copy = (JavaFunction) kryo(new SerializerConfigImpl()).copy(resolvedFunction());
        assertEquals(0, copy.getMethod().getModifiers(), "Kryo built a Method field by field: not even static");
        assertThrows(NullPointerException.class, () -> copy.call(SupportRequest.number(1)));
    }

    @Test
    void withMethodByReferenceTheCopyCallsTheSameMethod() throws Exception {
        SerializerConfigImpl config = new SerializerConfigImpl();
        config.addDefaultKryoSerializer(Method.class, MethodByReference.class);
        JavaFunction original = resolvedFunction();
        JavaFunction copy = (JavaFunction) kryo(config).copy(original);
        assertSame(original.getMethod(), copy.getMethod());
        assertEquals(SupportAgent.expectedAnswer(SupportRequest.number(1)), copy.call(SupportRequest.number(1)));
    }

    @Test
    void aMethodIsSerializedByItsName() throws Exception {
        SerializerConfigImpl config = new SerializerConfigImpl();
        config.addDefaultKryoSerializer(Method.class, MethodByReference.class);
        TypeSerializer<Object> serializer = kryo(config);
        Method method = SupportAgent.class.getMethod("expectedAnswer", SupportRequest.class);
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(method, out);
        assertEquals(method, serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())));
    }
}
