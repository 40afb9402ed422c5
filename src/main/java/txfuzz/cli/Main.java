package txfuzz.cli;
public class Main { public static void main(String[] a) {} }
