package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Enumeration;
import java.util.Collections;
import org.junit.jupiter.api.Test;

/**
 * What a Flink job restart does: the jar's classes are loaded again by a new user-code class
 * loader in the same JVM. Each loader must load the native library (a JVM refuses one file from
 * two loaders) and run a durable call.
 */
class ClassLoaderIsolationTest {
    /** Hides this project's classes and resources so the child loads its own copy from the jar. */
    private static final class HidingParent extends ClassLoader {
        HidingParent(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("io.durablejournal.")) {
                throw new ClassNotFoundException(name);
            }
            return super.loadClass(name, resolve);
        }

        @Override
        public URL getResource(String name) {
            return name.startsWith("io/durablejournal/") ? null : super.getResource(name);
        }

        @Override
        public Enumeration<URL> getResources(String name) throws IOException {
            return name.startsWith("io/durablejournal/") ? Collections.emptyEnumeration() : super.getResources(name);
        }
    }

    @Test
    void twoClassLoadersEachLoadTheLibraryAndRunADurableCall() throws Exception {
        String jarPath = System.getProperty("durablejournal.test.jar");
        assertTrue(jarPath != null && new File(jarPath).isFile(), "the build passes the jar: " + jarPath);
        URL jar = new File(jarPath).toURI().toURL();
        ClassLoader parent = new HidingParent(ClassLoaderIsolationTest.class.getClassLoader());
        try (URLClassLoader first = new URLClassLoader(new URL[] {jar}, parent);
                URLClassLoader second = new URLClassLoader(new URL[] {jar}, parent)) {
            Class<?> firstContext = first.loadClass("io.durablejournal.DurableExecutionContext");
            Class<?> secondContext = second.loadClass("io.durablejournal.DurableExecutionContext");
            assertNotSame(firstContext, secondContext);
            assertEquals("from first", durableCallThrough(first, "from first"));
            assertEquals("from second", durableCallThrough(second, "from second"));
            assertEquals("from first", durableCallThrough(first, "from first"), "the first copy still works");
        }
    }

    /** Runs one durable call with classes of {@code loader}, then replays it from the journal. */
    private static Object durableCallThrough(ClassLoader loader, String value) throws Exception {
        Class<?> stateClass = loader.loadClass("io.durablejournal.ActionState");
        Class<?> persisterClass = loader.loadClass("io.durablejournal.ActionStatePersister");
        Class<?> contextClass = loader.loadClass("io.durablejournal.DurableExecutionContext");
        Class<?> runnerClass = loader.loadClass("io.durablejournal.RunnerContextImpl");
        Class<?> callableClass = loader.loadClass("io.durablejournal.DurableCallable");
        int[] runs = {0};
        Object callable = Proxy.newProxyInstance(loader, new Class<?>[] {callableClass}, (proxy, method, args) -> {
            switch (method.getName()) {
                case "getId": return "tool-call:isolated";
                case "getResultClass": return String.class;
                case "call": runs[0]++; return value;
                case "reconciler": return null;
                case "semantics": return null;
                default: throw new UnsupportedOperationException(method.getName());
            }
        });
        Object state = stateClass.getConstructor().newInstance();
        Constructor<?> newContext = contextClass.getConstructor(stateClass, persisterClass);
        Object context = newContext.newInstance(state, null);
        Object runner = runnerClass.getConstructor(contextClass).newInstance(context);
        Method execute = runnerClass.getMethod("durableExecute", callableClass);
        Object first = execute.invoke(runner, callable);
        Object recorded = contextClass.getMethod("getActionState").invoke(context);
        Object replayContext = newContext.newInstance(recorded, null);
        Object replayed = execute.invoke(runnerClass.getConstructor(contextClass).newInstance(replayContext), callable);
        assertEquals(first, replayed);
        assertEquals(1, runs[0], "the replay did not run the call");
        return replayed;
    }
}
