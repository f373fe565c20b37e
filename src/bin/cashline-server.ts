#!/usr/bin/env node
import { main } from '../server/cli.js';

await main(process.argv.slice(2));
