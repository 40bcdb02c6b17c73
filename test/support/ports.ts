export { freePorts } from "../../scripts/src/ports.js";
