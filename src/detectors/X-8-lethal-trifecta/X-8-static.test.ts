import staticPart from './static.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

// The live servers of this folder belong to the dynamic part (X-8-dynamic.test.ts).
testDetectorFolder('X-8', [staticPart], import.meta.url, { skipServerFixtures: true });
